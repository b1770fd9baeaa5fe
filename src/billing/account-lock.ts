import { sql } from 'drizzle-orm';

/**
 * The transaction-scoped advisory lock that orders an account's credits and the
 * initialisation of its live balance, so neither can miss or double the other.
 */
export const accountLock = (accountId: string) => sql`select pg_advisory_xact_lock(hashtextextended(${`bal:${accountId}`}, 0))`;
