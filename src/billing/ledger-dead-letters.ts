import { sql } from 'drizzle-orm';
import type { Database } from '../db/database';
import { ledgerDeadLetters } from '../db/schema';
import type { LedgerCharge } from './ledger-row';

/** The SQLSTATE of a database error (PGlite and postgres.js set `code`; drizzle may wrap it in `cause`), or null. */
export function sqlState(error: unknown): string | null {
  for (let e = error, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return null;
}

/**
 * Whether the database refused the rows themselves (SQLSTATE class 22, data exception, or 23,
 * integrity constraint violation, such as the foreign key of an account deleted meanwhile):
 * the same rows would fail again, unlike a lost connection or a timeout, which a retry heals.
 */
export function isRowError(error: unknown): boolean {
  const state = sqlState(error);
  return state !== null && (state.startsWith('22') || state.startsWith('23'));
}

/** The message of a database error, with its SQLSTATE and detail when it has them. */
export function describeDbError(error: unknown): string {
  const state = sqlState(error);
  let e: unknown = error;
  // The driver's own error says what failed; a wrapper only repeats the statement.
  while (e && typeof e === 'object' && (e as { cause?: unknown }).cause && !(e as { code?: unknown }).code)
    e = (e as { cause: unknown }).cause;
  const detail = (e as { detail?: unknown })?.detail;
  const message = e instanceof Error ? e.message : String(e);
  return `${state ? `${state} ` : ''}${message}${typeof detail === 'string' && detail ? ` (${detail})` : ''}`;
}

/** Moves a settlement the database refused to `ledger_dead_letters` with its error; once per request id. */
export async function writeDeadLetter(db: Database, charge: LedgerCharge, error: unknown): Promise<void> {
  await db
    .insert(ledgerDeadLetters)
    .values({ requestId: charge.requestId, accountId: charge.accountId, charge, error: describeDbError(error) })
    .onConflictDoNothing();
}

/** How many settlements wait in the dead letters (operators, tests). */
export async function countDeadLettersIn(db: Database): Promise<number> {
  const rows = await db.select({ n: sql<number>`count(*)::int` }).from(ledgerDeadLetters);
  return Number(rows[0]?.n ?? 0);
}
