import { and, asc, count, desc, eq, gte, inArray, lt, sql, type SQL } from 'drizzle-orm';
import type { Database } from '../db/database';
import { ledgerEntries } from '../db/schema';
import { microsToNumber } from './money';
import type { UsageEntry } from './usage-schema';

/** Which ledger lines a usage listing covers: one account, optionally one currency and a time range. */
export interface UsageFilter {
  accountId: string;
  currency?: string;
  /** Inclusive. */
  start?: Date;
  /** Exclusive. */
  end?: Date;
}

/** A ledger line with its exact timestamp (microseconds, UTC) for keyset cursors. */
export interface UsageRow {
  id: number;
  /** `YYYY-MM-DDTHH:MM:SS.ffffffZ`: the column's full precision, which a JS Date would cut to ms. */
  ts: string;
  createdAt: Date;
  kind: string;
  sku: string;
  units: string;
  pricePerUnitUsd: string;
  amountMicros: number;
  currency: string;
  notes: string | null;
  requestId: string;
  modelId: string | null;
  executionMs: number | null;
  promptTokens: number | null;
  completionTokens: number | null;
}

// Usage is what was spent: charges, and refunds of charges (negative amounts). Credits and
// top-ups are money in, not usage.
const USAGE_KINDS = ['CHARGE', 'REFUND'] as const;

const columns = {
  id: ledgerEntries.id,
  ts: sql<string>`to_char(${ledgerEntries.createdAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`,
  createdAt: ledgerEntries.createdAt,
  kind: ledgerEntries.kind,
  sku: ledgerEntries.sku,
  units: ledgerEntries.units,
  pricePerUnitUsd: ledgerEntries.pricePerUnitUsd,
  amountMicros: ledgerEntries.amountMicros,
  currency: ledgerEntries.currency,
  notes: ledgerEntries.notes,
  requestId: ledgerEntries.requestId,
  modelId: ledgerEntries.modelId,
  executionMs: ledgerEntries.executionMs,
  promptTokens: ledgerEntries.promptTokens,
  completionTokens: ledgerEntries.completionTokens,
};

function whereOf(filter: UsageFilter): SQL {
  const parts: SQL[] = [eq(ledgerEntries.accountId, filter.accountId), inArray(ledgerEntries.kind, [...USAGE_KINDS])];
  if (filter.currency) parts.push(eq(ledgerEntries.currency, filter.currency as 'USD'));
  if (filter.start) parts.push(gte(ledgerEntries.createdAt, filter.start));
  if (filter.end) parts.push(lt(ledgerEntries.createdAt, filter.end));
  return and(...parts) as SQL;
}

/** One page by offset, newest or oldest first, with the total count (GET /billing/usage). */
export async function usagePage(
  db: Database,
  filter: UsageFilter,
  page: { limit: number; offset: number; order: 'asc' | 'desc' },
): Promise<{ rows: UsageRow[]; total: number }> {
  const where = whereOf(filter);
  const by = page.order === 'asc' ? asc : desc;
  const [rows, totals] = await Promise.all([
    db
      .select(columns)
      .from(ledgerEntries)
      .where(where)
      .orderBy(by(ledgerEntries.createdAt), by(ledgerEntries.id))
      .limit(page.limit)
      .offset(page.offset),
    db.select({ n: count() }).from(ledgerEntries).where(where),
  ]);
  return { rows: rows as UsageRow[], total: Number(totals[0]?.n ?? 0) };
}

/**
 * Up to `take` lines in ascending (timestamp, id) order strictly after `after`
 * (GET /billing/usage-history). The (account, created_at, id) index serves it.
 */
export async function usageAfter(
  db: Database,
  filter: UsageFilter,
  after: { ts: string; id: number } | null,
  take: number,
): Promise<UsageRow[]> {
  const where = after
    ? and(whereOf(filter), sql`(${ledgerEntries.createdAt}, ${ledgerEntries.id}) > (${after.ts}::timestamptz, ${after.id})`)
    : whereOf(filter);
  const rows = await db
    .select(columns)
    .from(ledgerEntries)
    .where(where)
    .orderBy(asc(ledgerEntries.createdAt), asc(ledgerEntries.id))
    .limit(take);
  return rows as UsageRow[];
}

/** The notes of a line: the reference's is a non-nullable string, "API Inference" on its inference lines. */
export function entryNotes(row: Pick<UsageRow, 'notes' | 'modelId' | 'executionMs'>): string {
  return row.notes ?? (row.modelId !== null || row.executionMs !== null ? 'API Inference' : '');
}

/** The served entry of a ledger line: amounts from micro-units, the charge as a positive amount. */
export function usageEntry(row: UsageRow): UsageEntry {
  const inference = row.modelId !== null || row.executionMs !== null;
  return {
    timestamp: row.createdAt.toISOString(),
    sku: row.sku,
    pricePerUnitUsd: Number(row.pricePerUnitUsd),
    unit: Number(row.units),
    amount: microsToNumber(-row.amountMicros),
    currency: row.currency,
    notes: entryNotes(row),
    inferenceDetails: inference
      ? {
          requestId: row.requestId,
          inferenceExecutionTime: row.executionMs ?? 0,
          promptTokens: row.promptTokens,
          completionTokens: row.completionTokens,
        }
      : null,
  };
}
