/**
 * `bun bench/usage-analytics.ts [--rows 1000000] [--backend pglite|postgres] [--rounds 3]`:
 * GET /billing/usage-analytics' five SQL aggregates (src/billing/analytics-report.ts) over one
 * account with `--rows` ledger charges spread over the last 90 days (two token lines each, as a
 * chat request writes, three API keys), asked for `lookback=90d` (every row) and `7d`. Postgres
 * needs DATABASE_URL (a fresh database is made and dropped). Prints the median time of each
 * query and of the whole answer (the queries run concurrently, as the route runs them).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { sql } from 'drizzle-orm';
import { analyticsPeriod } from '../src/billing/analytics-range';
import { usageAnalytics } from '../src/billing/analytics-report';
import { spendByDay, spendByDayAnd, spendByKey, spendByModelSku } from '../src/billing/usage-analytics';
import type { Storage } from '../src/db/database';
import { openPglite, openPostgres } from '../src/db/open';
import type { ModelCatalog } from '../src/models/catalog';

const argv = Bun.argv.slice(2);
const opt = (name: string, dflt: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1]! : dflt);
const rows = Number(opt('--rows', '1000000'));
const backend = opt('--backend', 'pglite');
const rounds = Number(opt('--rounds', '3'));

let storage: Storage;
let cleanup: () => Promise<void>;
if (backend === 'postgres') {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('--backend postgres needs DATABASE_URL');
  const name = `svc_bench_analytics_${process.pid}`;
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const u = new URL(url);
  u.pathname = `/${name}`;
  storage = await openPostgres(u.href, { max: 10 });
  cleanup = async () => {
    await storage.close();
    await admin.unsafe(`drop database ${name} with (force)`);
    await admin.end();
  };
} else {
  const dir = mkdtempSync(join(tmpdir(), 'svc-analytics-'));
  storage = await openPglite({ dataDir: dir });
  cleanup = async () => {
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  };
}

const db = storage.db;
const accountId = '00000000-0000-4000-8000-000000000001';
const keys = ['00000000-0000-4000-8000-0000000000a1', '00000000-0000-4000-8000-0000000000a2', null];
const now = Date.now();
const t0 = performance.now();
// One statement: the rows are made in SQL, spread evenly over 90 days.
await db.execute(sql`insert into ledger_charges (request_id, account_id, api_key_id, currency, model_id, lines, amount_micros, created_at)
  select 'bench-' || g, ${accountId}::uuid,
    (array[${keys[0]}::uuid, ${keys[1]}::uuid, null::uuid])[1 + g % 3],
    case when g % 5 = 0 then 'DIEM' else 'USD' end,
    'model-' || (g % 12),
    json_build_array(
      json_build_object('sku', 'model-' || (g % 12) || '-llm-input-mtoken', 'units', '0.000120', 'pricePerUnitUsd', '0.5', 'amount', -(g % 97)),
      json_build_object('sku', 'model-' || (g % 12) || '-llm-output-mtoken', 'units', '0.000350', 'pricePerUnitUsd', '2', 'amount', -(g % 89))),
    -(g % 97) - (g % 89),
    to_timestamp(${now / 1000} - (g::float8 / ${rows}) * 90 * 86400)
  from generate_series(1, ${rows}) g`);
// Rows inserted by hand bypass the ledger writer, which keeps usage_daily: sum them as the
// migration that created the rollup summed the ledger already written.
await db.execute(sql`insert into usage_daily (account_id, day, model_key, sku, api_key, currency, amount_micros, units)
  select c.account_id, (c.created_at at time zone 'UTC')::date, coalesce(c.model_id, ''), coalesce(l.sku, ''), coalesce(c.api_key_id::text, ''),
    c.currency, sum(coalesce(l.amount, 0)), sum(usage_daily_units(l.units))
  from ledger_charges c cross join lateral json_to_recordset(c.lines) as l(sku text, units text, amount bigint)
  where c.account_id = ${accountId}::uuid group by 1, 2, 3, 4, 5, 6`);
await db.execute(sql`analyze`);
console.log(`${backend}: ${rows} ledger charges seeded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

const models = { get: () => undefined } as unknown as ModelCatalog;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
async function time(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

for (const lookback of ['90d', '7d']) {
  const p = analyticsPeriod({ lookback }, now);
  const range = { accountId, start: p.start, end: p.end };
  const queries: Record<string, () => Promise<unknown>> = {
    byDay: () => spendByDay(db, range),
    byModelSku: () => spendByModelSku(db, range),
    byKey: () => spendByKey(db, range),
    byDayModel: () => spendByDayAnd(db, range, 'model_key'),
    byDayKey: () => spendByDayAnd(db, range, 'api_key'),
    'whole answer': () => usageAnalytics(db, models, accountId, p),
  };
  for (const [name, fn] of Object.entries(queries)) {
    const times: number[] = [];
    for (let i = 0; i < rounds; i++) times.push(await time(fn));
    console.log(
      `  lookback=${lookback} ${name.padEnd(13)} median ${median(times).toFixed(0).padStart(6)} ms  (${times.map((t) => t.toFixed(0)).join(', ')})`,
    );
  }
}
await cleanup();
