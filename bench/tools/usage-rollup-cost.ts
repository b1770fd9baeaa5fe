/**
 * `npx bun bench/tools/usage-rollup-cost.ts [--rows 20000] [--rounds 3] [--slices 0,2]`: what keeping
 * usage_daily adds to a ledger batch on the embedded database: the same batches (1,000 chat
 * settlements of one account, two lines each) written into two PGlite databases, one as svc
 * runs (the writer appends the batch's daily sums) and one whose usage_daily ignores inserts
 * (a rule), run after run interleaved (the machine is shared), unsliced and in
 * `billing.flushSliceMs` slices. Prints CPU µs per row, median (min).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import type { LedgerCharge } from '../../src/billing/ledger-row';
import { benchCharge, ownCpuMicros } from '../lib/ledger-charge';
import { writeLedgerBatch } from '../../src/billing/ledger-writer';
import { SlicePacer } from '../../src/billing/slice-pacer';
import { createAccount } from '../../src/auth/bootstrap';
import { openPglite } from '../../src/db/open';

const argv = Bun.argv.slice(2);
const opt = (name: string, dflt: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1]! : dflt);
const totalRows = Number(opt('--rows', '20000'));
const rounds = Number(opt('--rounds', '3'));
const slices = opt('--slices', '0,2').split(',').map(Number);
const BATCH = 1000;

async function database(rollup: boolean) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-rollup-cost-'));
  const storage = await openPglite({ dataDir: dir });
  if (!rollup) {
    await storage.db.execute(sql.raw('drop trigger ledger_entries_usage_daily_insert on ledger_entries'));
    await storage.db.execute(sql.raw('create rule usage_daily_off as on insert to usage_daily do instead nothing'));
  }
  return { storage, dir, accountId: await createAccount(storage.db, {}) };
}

let seq = 0;
function batch(accountId: string): LedgerCharge[] {
  return Array.from({ length: BATCH }, () => benchCharge(accountId, null, `req-${++seq}`));
}

async function run(db: Awaited<ReturnType<typeof database>>, sliceMs: number): Promise<number> {
  const batches = Array.from({ length: totalRows / BATCH }, () => batch(db.accountId));
  const pacer = sliceMs > 0 ? new SlicePacer(sliceMs) : undefined;
  const cpu0 = ownCpuMicros();
  for (const rows of batches) {
    await writeLedgerBatch(db.storage.db, rows, { pacer });
    await new Promise((r) => setImmediate(r));
  }
  return (ownCpuMicros() - cpu0) / totalRows;
}

const dbs = { with: await database(true), without: await database(false) };
await run(dbs.with, 0);
await run(dbs.without, 0);
const results = new Map<string, number[]>();
for (let r = 0; r < rounds; r++)
  for (const s of slices)
    for (const [name, db] of Object.entries(dbs)) {
      const key = `${s > 0 ? `${s} ms slices` : 'whole batch'}, ${name} the rollup`;
      results.set(key, [...(results.get(key) ?? []), await run(db, s)]);
    }
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
console.log(`ledger batches of ${BATCH} rows on PGlite (on disk), ${totalRows} rows per run, ${rounds} rounds interleaved`);
for (const [key, us] of results) console.log(`${key.padEnd(34)} ${median(us).toFixed(1)} (${Math.min(...us).toFixed(1)}) µs CPU/row`);
const rollupRows = await dbs.with.storage.db.execute(sql`select count(*) as n from usage_daily`);
console.log(`usage_daily rows appended: ${JSON.stringify((rollupRows as { rows?: unknown[] }).rows ?? rollupRows)}`);
for (const db of Object.values(dbs)) {
  await db.storage.close();
  rmSync(db.dir, { recursive: true, force: true });
}
