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

/** `a + b` for exact decimal strings (no float): both scaled to the longer fraction as BigInt. */
export function addDecimals(a: string, b: string): string {
  const fa = a.split('.')[1]?.length ?? 0;
  const fb = b.split('.')[1]?.length ?? 0;
  const scale = Math.max(fa, fb);
  const scaled = (v: string, f: number) => BigInt(v.replace('.', '') + '0'.repeat(scale - f));
  const sum = scaled(a, fa) + scaled(b, fb);
  if (scale === 0) return sum.toString();
  const digits = (sum < 0n ? -sum : sum).toString().padStart(scale + 1, '0');
  return `${sum < 0n ? '-' : ''}${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
}

/**
 * The daily sums a batch of charges adds to `usage_daily`, grouped in JavaScript so the
 * database appends a handful of rows per batch instead of expanding every charge's JSON
 * lines (a statement trigger doing that cost a PGlite ledger row 2.2-2.5 times its CPU, on
 * svc's own thread). The grouping is the one the migration's backfill and the delete trigger
 * use: the UTC day, the model (or the first line's SKU), the SKU, the key ('' for none) and
 * the currency; units that are not plain decimals count as 0.
 */
export function dailySums(rows: readonly LedgerCharge[]): DailySum[] {
  const groups = new Map<string, DailySum>();
  for (const c of rows) {
    const day = new Date(c.at).toISOString().slice(0, 10);
    const modelKey = c.modelId ?? c.lines[0]?.sku ?? '';
    const apiKey = c.apiKeyId ?? '';
    for (const line of c.lines) {
      const sku = line.sku ?? '';
      const key = `${c.accountId}\u0000${day}\u0000${modelKey}\u0000${sku}\u0000${apiKey}\u0000${c.currency}`;
      const units = typeof line.units === 'string' && DECIMAL.test(line.units) ? line.units : '0';
      const group = groups.get(key);
      if (group) {
        group.amount += line.amount ?? 0;
        group.units = addDecimals(group.units, units);
      } else groups.set(key, { accountId: c.accountId, day, modelKey, sku, apiKey, currency: c.currency, amount: line.amount ?? 0, units });
    }
  }
  return [...groups.values()];
}

/** The statement that appends `sums` (one JSON parameter) to `usage_daily`. */
export const APPEND_DAILY_SUMS = `insert into usage_daily (account_id, day, model_key, sku, api_key, currency, amount_micros, units)
  select s."accountId", s.day::date, s."modelKey", s.sku, s."apiKey", s.currency, s.amount, s.units::numeric
  from json_to_recordset($1::json) as s("accountId" uuid, day text, "modelKey" text, sku text, "apiKey" text, currency text, amount bigint, units text)`;
