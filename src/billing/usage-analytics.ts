import { sql, type SQL } from 'drizzle-orm';
import type { Database } from '../db/database';

/** Whose usage and when: one account, [start, end). */
export interface AnalyticsRange {
  accountId: string;
  start: Date;
  end: Date;
}

/** Spend of one group in one currency: micro-units used (charges less refunds), and units (tokens as tokens). */
export interface SpendRow {
  currency: string;
  micros: number;
  /** Exact decimal string (the sum of the lines' units, token SKUs in tokens). */
  units: string;
}

const DAY = sql.raw(`to_char(created_at at time zone 'UTC', 'YYYY-MM-DD')`);
// Token SKUs bill millions of tokens: the analytics count tokens.
const UNITS = sql.raw(`sum(case when sku like '%-mtoken' then units::numeric * 1000000 else units::numeric end)::text`);

/**
 * The usage rows of the range at charge level (a charge's total, its lines not expanded):
 * ledger_entries' CHARGE and REFUND lines and ledger_charges, each read through its
 * (account_id, created_at, id) index. Used is `-amount`: charges are negative, refunds positive.
 */
function chargeRows(r: AnalyticsRange): SQL {
  const where = (alias: string) =>
    sql`${sql.raw(alias)}.account_id = ${r.accountId} and ${sql.raw(alias)}.created_at >= ${r.start.toISOString()} and ${sql.raw(alias)}.created_at < ${r.end.toISOString()}`;
  return sql`(select e.created_at, e.currency, e.amount_micros, coalesce(e.model_id, e.sku) as model_key, e.api_key_id from ledger_entries e
      where ${where('e')} and e.kind in ('CHARGE', 'REFUND')
    union all
    select c.created_at, c.currency, c.amount_micros, coalesce(c.model_id, c.lines->0->>'sku'), c.api_key_id from ledger_charges c
      where ${where('c')})`;
}

/** The same range with each charge expanded into its line items (sku, units, amount). */
function lineRows(r: AnalyticsRange): SQL {
  const where = (alias: string) =>
    sql`${sql.raw(alias)}.account_id = ${r.accountId} and ${sql.raw(alias)}.created_at >= ${r.start.toISOString()} and ${sql.raw(alias)}.created_at < ${r.end.toISOString()}`;
  return sql`(select e.currency, coalesce(e.model_id, e.sku) as model_key, e.api_key_id, e.sku, e.units, e.amount_micros from ledger_entries e
      where ${where('e')} and e.kind in ('CHARGE', 'REFUND')
    union all
    select c.currency, coalesce(c.model_id, c.lines->0->>'sku'), c.api_key_id, l.sku, l.units, l.amount from ledger_charges c
      cross join lateral json_to_recordset(c.lines) as l(sku text, units text, amount bigint)
      where ${where('c')})`;
}

/** Rows of a raw query, whichever driver (postgres.js returns an array, PGlite `{ rows }`). */
async function rowsOf<T>(db: Database, query: SQL): Promise<T[]> {
  const result = await db.execute(query);
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}

/** bigint sums come back as strings or bigints by driver: micro-units fit a double exactly (below 2^53). */
const micros = (v: unknown) => Number(v);

/** Used micro-units per UTC day and currency. */
export async function spendByDay(db: Database, r: AnalyticsRange): Promise<{ day: string; currency: string; micros: number }[]> {
  const rows = await rowsOf<{ day: string; currency: string; micros: unknown }>(
    db,
    sql`select ${DAY} as day, currency, -sum(amount_micros) as micros from ${chargeRows(r)} u group by 1, 2`,
  );
  return rows.map((x) => ({ day: x.day, currency: x.currency, micros: micros(x.micros) }));
}

/** Used micro-units and units per model (a call without a model: its first SKU), SKU and currency. */
export async function spendByModelSku(db: Database, r: AnalyticsRange): Promise<({ modelKey: string; sku: string } & SpendRow)[]> {
  const rows = await rowsOf<{ model_key: string; sku: string; currency: string; micros: unknown; units: string }>(
    db,
    sql`select model_key, sku, currency, -sum(amount_micros) as micros, ${UNITS} as units from ${lineRows(r)} u group by 1, 2, 3`,
  );
  return rows.map((x) => ({ modelKey: x.model_key, sku: x.sku, currency: x.currency, micros: micros(x.micros), units: x.units }));
}

/** Used micro-units and units per API key (null: wallet sign-in) and currency, with the key's description. */
export async function spendByKey(
  db: Database,
  r: AnalyticsRange,
): Promise<({ apiKeyId: string | null; description: string | null } & SpendRow)[]> {
  const rows = await rowsOf<{ api_key_id: string | null; description: string | null; currency: string; micros: unknown; units: string }>(
    db,
    sql`select u.api_key_id, k.description, u.currency, u.micros, u.units from (
          select api_key_id, currency, -sum(amount_micros) as micros, ${UNITS} as units from ${lineRows(r)} l group by 1, 2
        ) u left join api_keys k on k.id = u.api_key_id`,
  );
  return rows.map((x) => ({
    apiKeyId: x.api_key_id,
    description: x.description,
    currency: x.currency,
    micros: micros(x.micros),
    units: x.units,
  }));
}

/** Used micro-units per UTC day and `by` (model key as spendByModelSku names it, or API key id), all currencies together. */
export async function spendByDayAnd(
  db: Database,
  r: AnalyticsRange,
  by: 'model_key' | 'api_key_id',
): Promise<{ day: string; group: string | null; micros: number }[]> {
  const rows = await rowsOf<{ day: string; grp: string | null; micros: unknown }>(
    db,
    sql`select ${DAY} as day, ${sql.raw(by)}::text as grp, -sum(amount_micros) as micros from ${chargeRows(r)} u group by 1, 2`,
  );
  return rows.map((x) => ({ day: x.day, group: x.grp, micros: micros(x.micros) }));
}
