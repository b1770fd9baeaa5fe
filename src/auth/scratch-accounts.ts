import { and, eq, isNull } from 'drizzle-orm';
import { accountLock } from '../billing/account-lock';
import type { UsageMeter } from '../billing/meter';
import { counterName, keyWindow } from '../billing/mirror-init';
import type { Database } from '../db/database';
import {
  accounts,
  apiKeys,
  balances,
  characterReviews,
  ledgerCharges,
  ledgerEntries,
  rateLimitLogs,
  reservations,
  walletPayments,
} from '../db/schema';
import { conflict, notFound } from '../http/errors';
import { createApiKey } from './api-keys';
import type { KeyCache } from './key-cache';

/** What creating and deleting scratch accounts needs. */
export interface ScratchDeps {
  db: Database;
  keys: KeyCache;
  meter: UsageMeter;
  now: () => number;
}

/** How many rows of each kind a deletion removed. */
export interface DeletedCounts {
  apiKeys: number;
  ledgerEntries: number;
  balances: number;
}

/**
 * Creates an account (no credit) with one ADMIN key, in one transaction: a scratch account,
 * which the operator can delete with everything it holds, or a lasting one, which is never
 * deleted. The key's secret is returned once, as every new key's is.
 */
export async function createScratchAccount(db: Database, opts: { displayName?: string; scratch?: boolean }) {
  const scratch = opts.scratch ?? true;
  return db.transaction(async (tx) => {
    const [account] = await tx
      .insert(accounts)
      .values({ kind: 'user', scratch, displayName: opts.displayName ?? null })
      .returning();
    if (!account) throw new Error('account insert returned no row');
    const key = await createApiKey(tx as unknown as Database, {
      accountId: account.id,
      type: 'ADMIN',
      description: scratch ? 'Scratch account ADMIN key' : 'Account ADMIN key',
    });
    return { account, key };
  });
}

/** How long a deletion waits for other instances to write the account's queued charges (they flush every few hundred ms). */
const WRITTEN_WAIT_MS = 2_000;

/**
 * Waits until no instance holds unwritten charges of the account, or refuses with 409: a
 * charge written after the account is gone would be refused by the database and kept aside,
 * never in the ledger that was deleted with the account.
 */
async function awaitWrittenCharges(deps: ScratchDeps, accountId: string): Promise<void> {
  const until = performance.now() + WRITTEN_WAIT_MS;
  for (;;) {
    const unwritten = await deps.meter.unwrittenCharges(accountId);
    if (unwritten === 0) return;
    if (performance.now() >= until)
      throw conflict(`The account has ${unwritten} charge(s) not yet written to the ledger; its keys are revoked, retry in a moment`, {
        'retry-after': '1',
      });
    await Bun.sleep(50);
  }
}

/**
 * Deletes a scratch account and everything it holds, so nothing of it is left: its keys are
 * revoked first (every instance's key cache drops them, so they are 401 at once), the ledger
 * rows still queued on this instance are written, then its keys, ledger rows, balances,
 * reservations, payments, reviews and rate-limit log rows go in one transaction under the
 * account's balance lock, and last its live state in the KV (mirrors, holds, key counters).
 * 404 for an unknown account; 409 for an account that is not a scratch account (a real
 * account's ledger is append-only) and while requests of the account still hold balance
 * (its keys are revoked by then, so a retry a moment later succeeds) or while any instance
 * still holds charges of the account not yet written to the ledger (after waiting for them
 * a moment).
 */
export async function deleteScratchAccount(deps: ScratchDeps, accountId: string): Promise<DeletedCounts> {
  const { db } = deps;
  const [account] = await db.select().from(accounts).where(eq(accounts.id, accountId)).limit(1);
  if (!account) throw notFound('Account not found');
  if (!account.scratch)
    throw conflict('Only scratch accounts can be deleted (POST /admin/accounts creates them); the ledger of any other account is kept');
  const keys = await db.select().from(apiKeys).where(eq(apiKeys.accountId, accountId));
  await db
    .update(apiKeys)
    .set({ deletedAt: new Date(deps.now()) })
    .where(and(eq(apiKeys.accountId, accountId), isNull(apiKeys.deletedAt)));
  for (const key of keys) await deps.keys.invalidate(key.secretHash);

  const holds = await deps.meter.liveHolds(accountId);
  if (holds > 0)
    throw conflict(`The account has ${holds} request(s) in flight or queued; its keys are revoked, retry once they end`, {
      'retry-after': '1',
    });
  await deps.meter.flush();
  await awaitWrittenCharges(deps, accountId);

  const credits: string[] = [];
  const counts = await db.transaction(async (tx) => {
    await tx.execute(accountLock(accountId));
    const ledger = await tx
      .delete(ledgerEntries)
      .where(eq(ledgerEntries.accountId, accountId))
      .returning({ requestId: ledgerEntries.requestId, kind: ledgerEntries.kind });
    for (const row of ledger) if (row.kind !== 'CHARGE') credits.push(row.requestId);
    const charges = await tx.delete(ledgerCharges).where(eq(ledgerCharges.accountId, accountId)).returning({ id: ledgerCharges.id });
    await tx.delete(reservations).where(eq(reservations.accountId, accountId));
    await tx.delete(rateLimitLogs).where(eq(rateLimitLogs.accountId, accountId));
    await tx.delete(characterReviews).where(eq(characterReviews.accountId, accountId));
    await tx.delete(walletPayments).where(eq(walletPayments.accountId, accountId));
    const removedKeys = await tx.delete(apiKeys).where(eq(apiKeys.accountId, accountId)).returning({ id: apiKeys.id });
    const removedBalances = await tx.delete(balances).where(eq(balances.accountId, accountId)).returning({ currency: balances.currency });
    await tx.delete(accounts).where(eq(accounts.id, accountId));
    return { apiKeys: removedKeys.length, ledgerEntries: ledger.length + charges.length, balances: removedBalances.length };
  });

  const now = deps.now();
  const counters = keys.flatMap((k) => {
    const start = keyWindow(k.limitPeriod, now).start;
    return (['usd', 'diem', 'vcu'] as const).map((cls) => counterName(accountId, k.id, k.limitPeriod, start, cls));
  });
  await deps.meter.forget(accountId, { counters, credits });
  return counts;
}
