/**
 * `bun bench/ledger-cost.ts [--rows 40000] [--batch 1000] [--slices 0,1,2,4]`: what a ledger
 * batch costs on the embedded database (PGlite in a temp data dir, as svc runs it), by slice
 * budget (`billing.flushSliceMs`; 0 = the whole batch in one COPY): CPU µs per row, and the
 * event loop's wait meanwhile (a 1 ms timer's lateness: p99, and how often over 5 ms). A row is
 * one settlement with two line items (a chat request), all of one account, as under the bench. Budgets run
 * interleaved over several rounds (the machine is shared); prints median and min.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApiKey } from '../src/auth/api-keys';
import { createAccount } from '../src/auth/bootstrap';
import type { LedgerCharge } from '../src/billing/ledger-row';
import { benchCharge, ownCpuMicros } from './lib/ledger-charge';
import { writeLedgerBatch } from '../src/billing/ledger-writer';
import { SlicePacer } from '../src/billing/slice-pacer';
import { openPglite } from '../src/db/open';

const argv = Bun.argv.slice(2);
const opt = (name: string, dflt: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1]! : dflt);
const totalRows = Number(opt('--rows', '40000'));
const batchRows = Number(opt('--batch', '1000'));
const slices = opt('--slices', '0,1,2,4').split(',').map(Number);
const rounds = Number(opt('--rounds', '3'));

const dir = mkdtempSync(join(tmpdir(), 'svc-ledger-cost-'));
const storage = await openPglite({ dataDir: dir });
const accountId = await createAccount(storage.db, {});
const { row: key } = await createApiKey(storage.db, { accountId, type: 'INFERENCE', limits: { usd: null, diem: null } });

let seq = 0;
/** A chat request's settlement: one row with its two line items (input and output tokens). */
const settlement = () => benchCharge(accountId, key.id, `req-${++seq}`);

/** Writes `totalRows` rows in batches of `batchRows`, sliced to `sliceMs`; CPU µs per row and the event loop's longest wait. */
async function run(sliceMs: number) {
  const batches: LedgerCharge[][] = [];
  for (let i = 0; i < totalRows / batchRows; i++) {
    const rows: LedgerCharge[] = [];
    while (rows.length < batchRows) rows.push(settlement());
    batches.push(rows);
  }
  const pacer = sliceMs > 0 ? new SlicePacer(sliceMs) : undefined;
  let last = performance.now();
  const waits: number[] = [];
  const tick = setInterval(() => {
    const now = performance.now();
    waits.push(now - last - 1);
    last = now;
  }, 1);
  const cpu0 = ownCpuMicros();
  for (const rows of batches) {
    await writeLedgerBatch(storage.db, rows, { pacer });
    await new Promise((r) => setImmediate(r));
  }
  const usPerRow = (ownCpuMicros() - cpu0) / totalRows;
  clearInterval(tick);
  waits.sort((a, b) => a - b);
  return { usPerRow, p99Ms: waits[Math.floor(waits.length * 0.99)]!, over5: waits.filter((w) => w > 5).length };
}

await run(0); // warm-up
const results = new Map<number, { usPerRow: number; p99Ms: number; over5: number }[]>(slices.map((s) => [s, []]));
for (let r = 0; r < rounds; r++) for (const s of slices) results.get(s)!.push(await run(s));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
console.log(`ledger batches of ${batchRows} rows on PGlite (on disk), ${totalRows} rows per run, ${rounds} rounds: median (min)`);
for (const [s, rs] of results) {
  const us = rs.map((r) => r.usPerRow);
  const p99 = rs.map((r) => r.p99Ms);
  const over5 = rs.map((r) => r.over5);
  console.log(
    `slice ${s > 0 ? `${s} ms` : 'none'}: ${median(us).toFixed(1)} (${Math.min(...us).toFixed(1)}) µs CPU/row, ` +
      `loop wait p99 ${median(p99).toFixed(1)} (${Math.min(...p99).toFixed(1)}) ms, waits over 5 ms ${median(over5)} (${Math.min(...over5)})`,
  );
}
await storage.close();
rmSync(dir, { recursive: true, force: true });
