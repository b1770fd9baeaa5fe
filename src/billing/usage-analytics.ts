import { sql, type SQL } from 'drizzle-orm';
import type { Database } from '../db/database';

/** Whose usage and when: one account, the UTC days [start, end) (both at midnight UTC). */
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

const DAY = sql.raw(`to_char(day, 'YYYY-MM-DD')`);
// Used is -amount (charges are negative); token SKUs bill millions of tokens, the analytics count tokens.
const USED = sql.raw(`-sum(amount_micros)`);
const UNITS = sql.raw(`sum(case when sku like '%-mtoken' then units * 1000000 else units end)::text`);

/**
 * The account's daily sums in the range: `usage_daily`, which triggers keep equal to the
 * ledger's charges and refunds per (day, model, SKU, key, currency) (migration 0009), read
 * through its primary key (account_id, day, ...): a few thousand rows for 90 days, however
 * many ledger lines they sum.
 */
function daily(r: AnalyticsRange): SQL {
  const day = (d: Date) => d.toISOString().slice(0, 10);
  return sql`(select * from usage_daily where account_id = ${r.accountId} and day >= ${day(r.start)}::date and day < ${day(r.end)}::date)`;
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
    sql`select ${DAY} as day, currency, ${USED} as micros from ${daily(r)} u group by 1, 2`,
  );
  return rows.map((x) => ({ day: x.day, currency: x.currency, micros: micros(x.micros) }));
}

/** Used micro-units and units per model (a call without a model: its first SKU), SKU and currency. */
export async function spendByModelSku(db: Database, r: AnalyticsRange): Promise<({ modelKey: string; sku: string } & SpendRow)[]> {
  const rows = await rowsOf<{ model_key: string; sku: string; currency: string; micros: unknown; units: string }>(
    db,
    sql`select model_key, sku, currency, ${USED} as micros, ${UNITS} as units from ${daily(r)} u group by 1, 2, 3`,
  );
  return rows.map((x) => ({ modelKey: x.model_key, sku: x.sku, currency: x.currency, micros: micros(x.micros), units: x.units }));
}

/** Used micro-units and units per API key (null: wallet sign-in) and currency, with the key's description. */
export async function spendByKey(
  db: Database,
  r: AnalyticsRange,
): Promise<({ apiKeyId: string | null; description: string | null } & SpendRow)[]> {
  const rows = await rowsOf<{ api_key: string; description: string | null; currency: string; micros: unknown; units: string }>(
    db,
    sql`select u.api_key, k.description, u.currency, u.micros, u.units from (
          select api_key, currency, ${USED} as micros, ${UNITS} as units from ${daily(r)} d group by 1, 2
        ) u left join api_keys k on k.id::text = u.api_key`,
  );
  return rows.map((x) => ({
    apiKeyId: x.api_key === '' ? null : x.api_key,
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
  by: 'model_key' | 'api_key',
): Promise<{ day: string; group: string | null; micros: number }[]> {
  const rows = await rowsOf<{ day: string; grp: string; micros: unknown }>(
    db,
    sql`select ${DAY} as day, ${sql.raw(by)} as grp, ${USED} as micros from ${daily(r)} u group by 1, 2`,
  );
  return rows.map((x) => ({ day: x.day, group: by === 'api_key' && x.grp === '' ? null : x.grp, micros: micros(x.micros) }));
}
