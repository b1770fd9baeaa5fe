import { and, eq, inArray, isNotNull, sql } from 'drizzle-orm';
import type { Database } from '../db/database';
import { ledgerAmounts } from '../db/schema';
import type { LimitPeriod } from './api-keys';
import { spendClass } from '../billing/spend-class';

/** Spend of one key, in micro-units per currency, over the windows a key list shows. */
export interface KeyUsage {
  trailingSevenDays: { usd: number; diem: number; vcu: number };
  /** Spend since the start of each limit period kind; pick by the key's limitPeriod. */
  since: Record<LimitPeriod, { usd: number; diem: number }>;
}

const DAY_MS = 86_400_000;

/** Start of the current limit window (spec 2.3): UTC day, UTC month, or the beginning of time. */
export function periodStart(period: LimitPeriod, nowMs: number): Date {
  const now = new Date(nowMs);
  if (period === 'EPOCH') return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  if (period === 'MONTH') return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  return new Date(0);
}

function emptyUsage(): KeyUsage {
  return {
    trailingSevenDays: { usd: 0, diem: 0, vcu: 0 },
    since: { EPOCH: { usd: 0, diem: 0 }, MONTH: { usd: 0, diem: 0 }, LIFETIME: { usd: 0, diem: 0 } },
  };
}

/**
 * Sums the ledger by key in one grouped query. Charges are negative there and refunds
 * positive, so usage is the negated net. USD usage includes bundled credits, as the
 * reference documents, and the wallet USDC a key spent.
 */
export async function usageByKey(db: Database, accountId: string, keyIds: string[], nowMs: number): Promise<Map<string, KeyUsage>> {
  const result = new Map<string, KeyUsage>();
  if (keyIds.length === 0) return result;
  const week = new Date(nowMs - 7 * DAY_MS);
  const day = periodStart('EPOCH', nowMs);
  const month = periodStart('MONTH', nowMs);
  const amount = ledgerAmounts.amountMicros;
  const sumSince = (from: Date) =>
    sql<string>`coalesce(sum(${amount}) filter (where ${ledgerAmounts.createdAt} >= ${from.toISOString()}), 0)::text`;
  const rows = await db
    .select({
      keyId: ledgerAmounts.apiKeyId,
      currency: ledgerAmounts.currency,
      week: sumSince(week),
      day: sumSince(day),
      month: sumSince(month),
      lifetime: sql<string>`coalesce(sum(${amount}), 0)::text`,
    })
    .from(ledgerAmounts)
    .where(
      and(
        eq(ledgerAmounts.accountId, accountId),
        isNotNull(ledgerAmounts.apiKeyId),
        inArray(ledgerAmounts.apiKeyId, keyIds),
        inArray(ledgerAmounts.kind, ['CHARGE', 'REFUND']),
      ),
    )
    .groupBy(ledgerAmounts.apiKeyId, ledgerAmounts.currency);
  for (const row of rows) {
    if (!row.keyId) continue;
    const usage = result.get(row.keyId) ?? emptyUsage();
    result.set(row.keyId, usage);
    // The class a key limit counts the spend in (USD usage includes bundled credits and USDC).
    const slot = spendClass(row.currency);
    if (!slot) continue;
    usage.trailingSevenDays[slot] -= Number(row.week);
    if (slot === 'vcu') continue;
    usage.since.EPOCH[slot] -= Number(row.day);
    usage.since.MONTH[slot] -= Number(row.month);
    usage.since.LIFETIME[slot] -= Number(row.lifetime);
  }
  return result;
}

/** Usage of a key with no ledger rows. */
export const NO_USAGE: KeyUsage = emptyUsage();
