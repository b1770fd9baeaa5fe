import { sql, type SQL } from 'drizzle-orm';
import type { Database } from '../db/database';
import { microsToNumber } from './money';
import type { UsageEntry, UsageLedgerEntry } from './usage-schema';

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
  /** The line's position in its charge (0 for other entries): with id, names one line. */
  line: number;
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
  apiKeyId: string | null;
  modelId: string | null;
  executionMs: number | null;
  promptTokens: number | null;
  completionTokens: number | null;
}

/** A row's created_at as `YYYY-MM-DDTHH:MM:SS.ffffffZ` (the cursor keeps the column's full precision). */
const utcMicros = (alias: 'e' | 'c') => `to_char(${alias}.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** The columns of a usage line, in UsageRow's names, from the entries branch (`e`) or the expanded charges (`c`, `l`). */
const ENTRY_COLUMNS = sql.raw(`e.id, 0 as line, ${utcMicros('e')} as ts,
  e.created_at as "createdAt", e.kind, e.sku, e.units, e.price_per_unit_usd as "pricePerUnitUsd", e.amount_micros as "amountMicros",
  e.currency, e.notes, e.request_id as "requestId", e.api_key_id as "apiKeyId", e.model_id as "modelId", e.execution_ms as "executionMs",
  e.prompt_tokens as "promptTokens", e.completion_tokens as "completionTokens"`);
const CHARGE_LINE_COLUMNS = sql.raw(`c.id, (l.n - 1)::int as line, ${utcMicros('c')} as ts,
  c.created_at as "createdAt", 'CHARGE' as kind, l.sku, l.units, l."pricePerUnitUsd", l.amount as "amountMicros",
  c.currency, 'API Inference; ' || c.notes as notes, c.request_id as "requestId", c.api_key_id as "apiKeyId", c.model_id as "modelId", c.execution_ms as "executionMs",
  c.prompt_tokens as "promptTokens", c.completion_tokens as "completionTokens"`);
/** A charge's line items as rows (`l`), numbered from 1 (`l.n`) in the order the charge lists them. */
const EXPAND_LINES = sql.raw(
  `cross join lateral rows from (json_to_recordset(c.lines) as (sku text, units text, "pricePerUnitUsd" text, amount bigint)) with ordinality as l(sku, units, "pricePerUnitUsd", amount, n)`,
);

/**
 * The filter on one ledger table (`alias`): the account and the optional currency and
 * range. Usage is what was spent: charges, and refunds of charges (negative amounts);
 * credits and top-ups are money in, not usage. ledger_charges holds charges only.
 */
function whereOf(alias: 'e' | 'c', filter: UsageFilter): SQL {
  const col = (name: string) => sql.raw(`${alias}.${name}`);
  const parts: SQL[] = [sql`${col('account_id')} = ${filter.accountId}`];
  if (alias === 'e') parts.push(sql`e.kind in ('CHARGE', 'REFUND')`);
  if (filter.currency) parts.push(sql`${col('currency')} = ${filter.currency}`);
  if (filter.start) parts.push(sql`${col('created_at')} >= ${filter.start.toISOString()}`);
  if (filter.end) parts.push(sql`${col('created_at')} < ${filter.end.toISOString()}`);
  return sql.join(parts, sql` and `);
}

/** Where a page starts: after this line (a usage-history cursor), or after `offset` lines. */
type PageStart = { after: { ts: string; id: number; line: number } } | { offset: number };

/**
 * Up to `take` usage lines of both ledger tables in (timestamp, id, line) order. Each table
 * is read through its (account, created_at, id) index with its own limit before charges are
 * expanded into lines: a charge has at least one line, so `take` (+ offset) rows of each
 * table are enough. Read through the `ledger_lines` view instead, the first page of an
 * account with 200,000 charges sorted all of them (~700 ms on Postgres against a few ms).
 */
async function usageLines(db: Database, filter: UsageFilter, order: 'asc' | 'desc', take: number, start: PageStart): Promise<UsageRow[]> {
  const dir = sql.raw(order);
  const after = 'after' in start ? start.after : null;
  const offset = 'offset' in start ? start.offset : 0;
  // A table's first row from the cursor may be the cursor's own row (kept for the lines of its charge after it).
  const perTable = take + offset + (after ? 1 : 0);
  // The index bound: the cursor's row of each table and everything after it; the line bound is applied once expanded.
  const fromCursor = (alias: 'e' | 'c') =>
    after ? sql` and (${sql.raw(alias)}.created_at, ${sql.raw(alias)}.id) >= (${after.ts}::timestamptz, ${after.id})` : sql``;
  const result = await db.execute(sql`
    select * from (
      (select ${ENTRY_COLUMNS} from ledger_entries e where ${whereOf('e', filter)}${fromCursor('e')}
        order by e.created_at ${dir}, e.id ${dir} limit ${perTable})
      union all
      (select ${CHARGE_LINE_COLUMNS}
        from (select * from ledger_charges c where ${whereOf('c', filter)}${fromCursor('c')} order by c.created_at ${dir}, c.id ${dir} limit ${perTable}) c
        ${EXPAND_LINES})
    ) lines
    ${after ? sql`where ("createdAt", id, line) > (${after.ts}::timestamptz, ${after.id}, ${after.line})` : sql``}
    order by "createdAt" ${dir}, id ${dir}, line ${dir} limit ${take} offset ${offset}`);
  const rows = (Array.isArray(result) ? result : (result as { rows: UsageRow[] }).rows) as UsageRow[];
  // A raw query bypasses drizzle's column mapping: each driver returns timestamptz and bigint its own way, so normalise here.
  for (const r of rows) {
    r.createdAt = new Date(r.createdAt);
    r.id = Number(r.id);
    r.amountMicros = Number(r.amountMicros);
  }
  return rows;
}

/** How many usage lines the filter covers, in both tables (a charge counts its lines). */
async function usageCount(db: Database, filter: UsageFilter): Promise<number> {
  const result = await db.execute(sql`
    select (select count(*) from ledger_entries e where ${whereOf('e', filter)})
         + (select coalesce(sum(json_array_length(c.lines)), 0) from ledger_charges c where ${whereOf('c', filter)}) as n`);
  const rows = (Array.isArray(result) ? result : (result as { rows: { n: unknown }[] }).rows) as { n: unknown }[];
  return Number(rows[0]?.n ?? 0);
}

/** One page by offset, newest or oldest first, with the total count (GET /billing/usage). */
export async function usagePage(
  db: Database,
  filter: UsageFilter,
  page: { limit: number; offset: number; order: 'asc' | 'desc' },
): Promise<{ rows: UsageRow[]; total: number }> {
  const [rows, total] = await Promise.all([
    usageLines(db, filter, page.order, page.limit, { offset: page.offset }),
    usageCount(db, filter),
  ]);
  return { rows, total };
}

/** Up to `take` lines in ascending (timestamp, id, line) order strictly after `after` (GET /billing/usage-history). */
export function usageAfter(
  db: Database,
  filter: UsageFilter,
  after: { ts: string; id: number; line: number } | null,
  take: number,
): Promise<UsageRow[]> {
  return usageLines(db, filter, 'asc', take, after ? { after } : { offset: 0 });
}

/**
 * The notes of a line: the reference's is a non-nullable string, "API Inference" on its
 * inference lines; a charge the plugins noted reads "API Inference; guardrails: pii=redact".
 */
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

/** The served entry of GET /billing/usage: the usage entry, and the request, key and model of its line (the console groups a request's lines by them). */
export function usageLedgerEntry(row: UsageRow): UsageLedgerEntry {
  return { ...usageEntry(row), requestId: row.requestId, apiKeyId: row.apiKeyId, modelId: row.modelId };
}
