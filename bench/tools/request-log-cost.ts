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
import { startRequestRecorder, type RequestRecord } from '../../src/request-log/writer';
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

/** A JSON chat request's record, as the request log keeps it. */
function record(i: number, at: number): RequestRecord {
  return {
    requestId: `req_bench_${at}_${i}`,
    at,
    accountId,
    apiKeyId: null,
    method: 'POST',
    route: '/api/v1/chat/completions',
    model: 'bench-model',
    replica: 'bench',
    status: 200,
    error: null,
    latencyMs: 3,
    ttfbMs: 3,
    stream: null,
    stages: { auth_ms: 0.01, admission_ms: 0.02, plugins_ms: 0.01, upstream_ttfb_ms: 1.2, upstream_ms: 1.3, settlement_ms: 0.05 },
    upstreamMs: 1,
    cache: 'MISS',
    guardrails: null,
    promptTokens: 12,
    completionTokens: 50,
    costMicros: 2,
    currency: 'USD',
    clientIp: '127.0.0.1',
    userAgent: 'autocannon',
  };
}

const figures: number[] = [];
for (let round = 0; round < rounds; round++) {
  const at = Date.now();
  const before = ownCpuMicros();
  for (let i = 0; i < rows; i++) recorder.add(record(i, at));
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
