/**
 * `bun bench/meter-cost.ts [--requests 20000] [--rounds 3]`: the usage meter alone on the
 * embedded backends, no HTTP: CPU per `open` + `release` (admission: rate limits, balance
 * hold, headers) and per `open` + `settle` (the same plus the settlement and its ledger row,
 * flushed to PGlite before the clock stops), 16 at a time, interleaved over rounds.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashSecret } from '../src/auth/api-keys';
import { bootstrapAdminKey } from '../src/auth/bootstrap';
import { createDeps } from '../src/boot';
import { parseConfig } from '../src/config';
import { openPglite } from '../src/db/open';
import { createMemoryStore } from '../src/kv/memory';
import type { MeterOpenInput } from '../src/billing/meter';
import { benchConfig, BENCH_MODEL } from './servers/svc-config';
const config = parseConfig({ ...benchConfig('http://upstream.invalid'), logLevel: 'warn', bootstrapCreditUsd: '1000000000' });
const storage = await openPglite({ dataDir: mkdtempSync(join(tmpdir(), 'svc-meter-')) });
const deps = await createDeps(config, { storage, kv: createMemoryStore({}), fetch: fetch });
const key = (await bootstrapAdminKey(storage.db, config.bootstrapCreditUsd))!;
const apiKey = (await deps.keys.lookup(hashSecret(key)))!;
const caller = { accountId: apiKey.accountId, tier: apiKey.tier, via: 'api_key' as const, apiKey, wallet: null };
const model = deps.models.get(BENCH_MODEL)!;
const argv = Bun.argv.slice(2);
const opt = (name: string, dflt: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1]! : dflt);
const requests = Number(opt('--requests', '20000'));
const rounds = Number(opt('--rounds', '3'));
let n = 0;
async function one(settle: boolean) {
  const ctx = { requestId: `r-${++n}`, startedAt: performance.now(), caller } as unknown as MeterOpenInput['ctx'];
  const t = await deps.meter.open({ ctx, model, estimatedPromptTokens: 10, maxCompletionTokens: 64 });
  if (settle) await t.settle({ promptTokens: 10, completionTokens: 20, executionMs: 5 });
  else await t.release();
}
const cpu = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};
/** CPU µs per call of `count` opens, each settled or released, 16 at a time. */
async function run(settle: boolean, count: number) {
  const c0 = cpu();
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      for (let i = 0; i < count / 16; i++) await one(settle);
    }),
  );
  await deps.meter.flush();
  return (cpu() - c0) / count;
}
await run(true, requests);
await run(false, requests);
for (let r = 0; r < rounds; r++)
  console.log(
    `open + settle (ledger row written) ${(await run(true, requests)).toFixed(1)} µs; open + release ${(await run(false, requests)).toFixed(1)} µs`,
  );
process.exit(0);
