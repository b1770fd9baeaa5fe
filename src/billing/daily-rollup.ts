import { DecimalSum } from './decimal-sum';
import type { LedgerCharge } from './ledger-row';

/** One `usage_daily` row a batch appends: a (account, day, model, SKU, key, currency) group's sums. */
export interface DailySum {
  accountId: string;
  day: string;
  modelKey: string;
  sku: string;
  apiKey: string;
  currency: string;
  amount: number;
  /** Exact decimal sum of the lines' units. */
  units: string;
}

const DECIMAL = /^-?\d+(\.\d+)?$/;
const DAY_MS = 86_400_000;

/** A group's sums while a batch is grouped; `units` is an exact running sum. */
interface DailyGroup extends Omit<DailySum, 'units'> {
  units: DecimalSum;
}

/**
 * The daily sums a batch of charges adds to `usage_daily`, grouped in JavaScript so the
 * database appends a handful of rows per batch instead of expanding every charge's JSON
 * lines (a statement trigger doing that cost a PGlite ledger row 2.2-2.5 times its CPU, on
 * svc's own thread). The grouping is the one the migration's backfill and the delete trigger
 * use: the UTC day, the model (or the first line's SKU), the SKU, the key ('' for none) and
 * the currency; units that are not plain decimals count as 0. A batch spans a day or two, so
 * the day's string is made once per day, not per charge.
 */
export function dailySums(rows: readonly LedgerCharge[]): DailySum[] {
  const groups = new Map<string, DailyGroup>();
  let dayNumber = NaN;
  let day = '';
  for (const c of rows) {
    const n = Math.floor(c.at / DAY_MS);
    if (n !== dayNumber) {
      dayNumber = n;
      day = new Date(n * DAY_MS).toISOString().slice(0, 10);
    }
    const modelKey = c.modelId ?? c.lines[0]?.sku ?? '';
    const apiKey = c.apiKeyId ?? '';
    for (const line of c.lines) {
      const sku = line.sku ?? '';
      const key = `${c.accountId}\u0000${day}\u0000${modelKey}\u0000${sku}\u0000${apiKey}\u0000${c.currency}`;
      let group = groups.get(key);
      if (!group) {
        group = { accountId: c.accountId, day, modelKey, sku, apiKey, currency: c.currency, amount: 0, units: new DecimalSum() };
        groups.set(key, group);
      }
      group.amount += line.amount ?? 0;
      if (typeof line.units === 'string' && DECIMAL.test(line.units)) group.units.add(line.units);
    }
  }
  const sums: DailySum[] = [];
  for (const g of groups.values()) sums.push({ ...g, units: g.units.toString() });
  return sums;
}

/** The statement that appends `sums` (one JSON parameter) to `usage_daily`. */
export const APPEND_DAILY_SUMS = `insert into usage_daily (account_id, day, model_key, sku, api_key, currency, amount_micros, units)
  select s."accountId", s.day::date, s."modelKey", s.sku, s."apiKey", s.currency, s.amount, s.units::numeric
  from json_to_recordset($1::json) as s("accountId" uuid, day text, "modelKey" text, sku text, "apiKey" text, currency text, amount bigint, units text)`;
