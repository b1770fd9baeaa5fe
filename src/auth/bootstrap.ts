import { sql } from 'drizzle-orm';
import { creditAccount } from '../billing/credit';
import { toMicros } from '../billing/money';
import type { Database } from '../db/database';
import { accounts, apiKeys } from '../db/schema';
import { createApiKey, type ApiKeyType } from './api-keys';

const BOOTSTRAP_KEY_DESCRIPTION = 'Bootstrap admin key';

/** Creates an account with a starting USD credit; returns its id. */
export async function createAccount(
  db: Database,
  opts: { creditUsd?: string; tier?: 'standard' | 'partner'; displayName?: string; operator?: boolean } = {},
) {
  const [account] = await db
    .insert(accounts)
    .values({ kind: 'user', tier: opts.tier ?? 'standard', displayName: opts.displayName ?? null, operator: opts.operator ?? false })
    .returning({ id: accounts.id });
  if (!account) throw new Error('account insert returned no row');
  const micros = opts.creditUsd ? toMicros(opts.creditUsd) : 0;
  if (micros > 0)
    await creditAccount(db, {
      accountId: account.id,
      currency: 'USD',
      amountMicros: micros,
      requestId: `bootstrap-${account.id}`,
      sku: 'bootstrap-credit',
      notes: 'Starting credit',
    });
  return account.id;
}

/**
 * On first start with an empty database, creates the bootstrap account (the operator's) and its ADMIN key.
 * Returns the secret to print once, or null when keys already exist. A transaction-scoped
 * advisory lock keeps two instances starting together from both bootstrapping.
 */
export async function bootstrapAdminKey(db: Database, creditUsd: string): Promise<string | null> {
  return (await bootstrapAdmin(db, creditUsd))?.secret ?? null;
}

/** The same, also returning the bootstrap account's id (the first-start banner shows both). */
export async function bootstrapAdmin(db: Database, creditUsd: string): Promise<{ secret: string; accountId: string } | null> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(7313001)`);
    const existing = await tx.select({ id: apiKeys.id }).from(apiKeys).limit(1);
    if (existing.length > 0) return null;
    const accountId = await createAccount(tx as unknown as Database, { creditUsd, displayName: 'bootstrap', operator: true });
    const { secret } = await createApiKey(tx as unknown as Database, { accountId, type: 'ADMIN', description: BOOTSTRAP_KEY_DESCRIPTION });
    return { secret, accountId };
  });
}

/** Whether the bootstrap ADMIN key is still usable (not deleted): the start-up banner warns about it. */
export async function bootstrapKeyLive(db: Database): Promise<boolean> {
  const rows = await db
    .select({ id: apiKeys.id })
    .from(apiKeys)
    .where(sql`${apiKeys.description} = ${BOOTSTRAP_KEY_DESCRIPTION} and ${apiKeys.deletedAt} is null`)
    .limit(1);
  return rows.length > 0;
}

/** Creates a key on the bootstrap (oldest) account, for `bun run keys:create`. */
export async function createKeyForFirstAccount(db: Database, type: ApiKeyType, creditUsd: string) {
  const [first] = await db
    .select({ id: accounts.id })
    .from(accounts)
    .where(sql`${accounts.kind} = 'user'`)
    .orderBy(accounts.createdAt)
    .limit(1);
  const accountId = first?.id ?? (await createAccount(db, { creditUsd, displayName: 'bootstrap', operator: true }));
  return createApiKey(db, { accountId, type, description: `Created by keys:create (${type})` });
}
