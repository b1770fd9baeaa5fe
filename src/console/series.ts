import { sql, type SQL } from 'drizzle-orm';
import type { Database } from '../db/database';

/** The console's time windows: how far back, and the width of one bucket. */
export const WINDOWS = {
  '24h': { spanMs: 24 * 3_600_000, bucket: 'hour', bucketMs: 3_600_000 },
  '7d': { spanMs: 7 * 86_400_000, bucket: 'day', bucketMs: 86_400_000 },
  '30d': { spanMs: 30 * 86_400_000, bucket: 'day', bucketMs: 86_400_000 },
} as const;
/** A window name the console offers. */
export type WindowName = keyof typeof WINDOWS;

/** Bucket start times (epoch ms, UTC) covering the window that ends at `now`, oldest first. */
export function bucketsOf(window: WindowName, now: number): number[] {
  const { spanMs, bucketMs } = WINDOWS[window];
  const last = Math.floor(now / bucketMs) * bucketMs;
  const first = Math.floor((now - spanMs) / bucketMs) * bucketMs + bucketMs;
  const out: number[] = [];
  for (let t = first; t <= last; t += bucketMs) out.push(t);
  return out;
}

/** One named series of per-bucket values. */
export interface Series {
  name: string;
  values: Record<string, number[]>;
}

/** The rows of a raw query, whatever the driver's result shape (postgres.js gives an array, PGlite `{ rows }`). */
async function rowsOf<T>(db: Database, query: SQL): Promise<T[]> {
  const result = await db.execute(query);
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}

/** Folds `(bucket, name, field...)` rows into one series per name, zero-filled over the buckets. */
function fold(buckets: number[], rows: Record<string, unknown>[], fields: string[]): Series[] {
  const index = new Map(buckets.map((b, i) => [b, i]));
  const byName = new Map<string, Series>();
  for (const row of rows) {
    const i = index.get(new Date(row.bucket as string).getTime());
    if (i === undefined) continue;
    const name = String(row.name ?? '');
    let s = byName.get(name);
    if (!s) byName.set(name, (s = { name, values: Object.fromEntries(fields.map((f) => [f, buckets.map(() => 0)])) }));
    for (const f of fields) (s.values[f] as number[])[i] = Number(row[f] ?? 0);
  }
  return [...byName.values()];
}

/**
 * Requests, tokens and USD spend (micro-units charged in USD or USDC, less refunds) per bucket,
 * one series per model or per key, over both ledger tables: `ledger_charges` (one row per
 * request) and `ledger_entries` (one row per line; a request counts once).
 */
export async function usageSeries(db: Database, accountId: string, window: WindowName, by: 'model' | 'key', now: number) {
  const buckets = bucketsOf(window, now);
  // An ISO string, not a Date: postgres.js takes no Date as a raw query parameter.
  const since = new Date(buckets[0] as number).toISOString();
  const unit = sql.raw(`'${WINDOWS[window].bucket}'`);
  const group = sql.raw(by === 'model' ? 'model_id' : 'api_key_id');
  const rows = await rowsOf<Record<string, unknown>>(
    db,
    sql`
    select date_trunc(${unit}, created_at at time zone 'UTC') at time zone 'UTC' as bucket, ${group}::text as name,
           count(distinct request_id) as requests,
           coalesce(sum(coalesce(prompt_tokens, 0) + coalesce(completion_tokens, 0)), 0) as tokens,
           coalesce(sum(case when currency in ('USD', 'USDC') then -amount_micros else 0 end), 0) as spend
    from (
      select created_at, model_id, api_key_id, request_id, currency, prompt_tokens, completion_tokens, amount_micros
        from ledger_charges where account_id = ${accountId} and created_at >= ${since}::timestamptz
      union all
      select created_at, model_id, api_key_id, request_id, currency, prompt_tokens, completion_tokens, amount_micros
        from ledger_entries where account_id = ${accountId} and created_at >= ${since}::timestamptz and kind in ('CHARGE', 'REFUND')
    ) u
    group by 1, 2`,
  );
  return { window, bucketMs: WINDOWS[window].bucketMs, buckets, series: fold(buckets, rows, ['requests', 'tokens', 'spend']) };
}

/**
 * Requests refused per bucket, one series per kind (RPM, TPM, FAILED_REQUESTS, abuse
 * blocks...), from the refusal log; every account's for the operator, else the caller's.
 */
export async function refusalSeries(db: Database, accountId: string | null, window: WindowName, now: number) {
  const buckets = bucketsOf(window, now);
  const since = new Date(buckets[0] as number).toISOString();
  const unit = sql.raw(`'${WINDOWS[window].bucket}'`);
  const account = accountId === null ? sql`true` : sql`account_id = ${accountId}`;
  const rows = await rowsOf<Record<string, unknown>>(
    db,
    sql`
    select date_trunc(${unit}, created_at at time zone 'UTC') at time zone 'UTC' as bucket, type as name, count(*) as refused
    from rate_limit_logs where ${account} and created_at >= ${since}::timestamptz
    group by 1, 2`,
  );
  return { window, bucketMs: WINDOWS[window].bucketMs, buckets, series: fold(buckets, rows, ['refused']) };
}
