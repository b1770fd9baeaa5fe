/**
 * `bun bench/tools/request-log-cost.ts [--rows 20000] [--batch 500] [--rounds 3] [--external]`: what the
 * request log's writer costs per row on the embedded database (PGlite in a temp data dir, as svc
 * runs it), or with --external on the Postgres of DATABASE_URL (a fresh database): this process's
 * CPU µs per row, the rows queued with `add` and written by `flush` in batches of `--batch`. A row is
 * a JSON chat request's record with its stage timings, as under the bench. Prints each round and the median.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAccount } from '../../src/auth/bootstrap';
import { openPglite, openPostgres } from '../../src/db/open';
import { createLogger } from '../../src/log';
import { parseConfigSection } from '../../src/config';
import { ObservabilityConfigSchema } from '../../src/request-log/config';
import { startRequestRecorder } from '../../src/request-log/writer';
import { benchRecord } from '../lib/request-record';
import { ownCpuMicros } from '../lib/ledger-charge';
import { freshDatabase } from '../servers/svc';

const argv = Bun.argv.slice(2);
const opt = (name: string, dflt: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1]! : dflt);
const rows = Number(opt('--rows', '20000'));
const batchSize = Number(opt('--batch', '500'));
const rounds = Number(opt('--rounds', '3'));
const external = argv.includes('--external');

const dir = mkdtempSync(join(tmpdir(), 'svc-request-log-cost-'));
const fresh = external ? await freshDatabase(process.env.DATABASE_URL!) : null;
const storage = fresh ? await openPostgres(fresh.url) : await openPglite({ dataDir: dir });
const accountId = await createAccount(storage.db, {});
const config = parseConfigSection(
  ObservabilityConfigSchema,
  { requestLog: { batchSize, maxQueued: rows * 2 } },
  'observability',
).requestLog;
const recorder = startRequestRecorder({ db: storage.db, log: createLogger('error'), now: Date.now, config });

const figures: number[] = [];
for (let round = 0; round < rounds; round++) {
  const at = Date.now();
  const before = ownCpuMicros();
  for (let i = 0; i < rows; i++) recorder.add(benchRecord(accountId, `req_bench_${at}_${i}`, at));
  await recorder.flush();
  const perRow = (ownCpuMicros() - before) / rows;
  figures.push(perRow);
  console.log(`round ${round + 1}: ${perRow.toFixed(1)} µs CPU/row`);
}
figures.sort((a, b) => a - b);
console.log(
  `request log on ${external ? 'Postgres' : 'PGlite'}, batches of ${batchSize}: median ${figures[Math.floor(figures.length / 2)]!.toFixed(1)} µs CPU/row`,
);
await recorder.close();
await storage.close();
await fresh?.drop();
rmSync(dir, { recursive: true, force: true });
process.exit(0);
