import { and, eq, gte, inArray, sql } from 'drizzle-orm';
import type { LimitPeriod } from '../auth/api-keys';
import { periodStart } from '../auth/key-usage';
import type { Database } from '../db/database';
import { balances, ledgerAmounts } from '../db/schema';
import { accountLock } from './account-lock';
import type { Currency } from './credit';
import type { BillingStore } from './store';
import { spendClass, type SpendClass } from './spend-class';

/** Every currency an account can hold; mirrors are initialised together. */
export const CURRENCIES: readonly Currency[] = ['USD', 'DIEM', 'VCU', 'BUNDLED_CREDITS', 'USDC'];

/**
 * Sets the account's balance mirrors from the database if they are absent. Runs under the
 * account's advisory lock, which credits also take, so a credit lands either in the values
 * read here or in the mirror afterwards, never in neither and never in both.
 */
export async function initBalanceMirror(db: Database, store: BillingStore, accountId: string): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.execute(accountLock(accountId));
    const rows = await tx
      .select({ currency: balances.currency, amount: balances.amountMicros })
      .from(balances)
      .where(eq(balances.accountId, accountId));
    const values: Partial<Record<Currency, number>> = {};
    for (const c of CURRENCIES) values[c] = 0;
    for (const r of rows) values[r.currency] = r.amount;
    await store.initBalances(accountId, values);
  });
}

/** The window a key's counters cover at `now`: its start, and how long a counter must live. */
export function keyWindow(period: LimitPeriod, now: number): { start: number; ttlMs: number } {
  const start = periodStart(period, now).getTime();
  if (period === 'LIFETIME') return { start, ttlMs: 0 };
  const d = new Date(start);
  const end = period === 'EPOCH' ? start + 86_400_000 : Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  // A day past the window end, so late settlements of the window still find it.
  return { start, ttlMs: end - now + 86_400_000 };
}

/**
 * The counter name of a key, window and class (the window start makes a new window start at 0).
 * It carries the account's hash tag, so on a Redis Cluster it lives in the slot of the
 * account's mirrors and holds, which the same scripts touch.
 */
export const counterName = (accountId: string, keyId: string, period: LimitPeriod, windowStart: number, cls: SpendClass) =>
  `bill:{${accountId}}:kc:${keyId}:${period}:${windowStart}:${cls}`;

/**
 * Initialises the key's counters of the window from its ledger entries since the window
 * start (charges negative, refunds positive), under the key's advisory lock.
 */
export async function initKeyCounters(
  db: Database,
  store: BillingStore,
  k: { accountId: string; keyId: string; period: LimitPeriod },
  window: { start: number; ttlMs: number },
): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`key:${k.keyId}`}, 0))`);
    const rows = await tx
      .select({ currency: ledgerAmounts.currency, sum: sql<string>`coalesce(sum(${ledgerAmounts.amountMicros}), 0)::text` })
      .from(ledgerAmounts)
      .where(
        and(
          // The account narrows the scan to its rows through the (account, created_at) indexes.
          eq(ledgerAmounts.accountId, k.accountId),
          eq(ledgerAmounts.apiKeyId, k.keyId),
          inArray(ledgerAmounts.kind, ['CHARGE', 'REFUND']),
          gte(ledgerAmounts.createdAt, new Date(window.start)),
        ),
      )
      .groupBy(ledgerAmounts.currency);
    const spent: Record<SpendClass, number> = { usd: 0, diem: 0, vcu: 0 };
    for (const r of rows) {
      const cls = spendClass(r.currency);
      if (cls) spent[cls] -= Number(r.sum);
    }
    for (const cls of ['usd', 'diem', 'vcu'] as const)
      await store.initCounter(counterName(k.accountId, k.keyId, k.period, window.start, cls), spent[cls], window.ttlMs);
  });
}
