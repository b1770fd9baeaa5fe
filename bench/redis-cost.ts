/**
 * `bun bench/redis-cost.ts [--requests 20000] [--rounds 3] [--in-flight 16] [--callgrind] [--release]`: what one
 * metered request costs Redis. The usage meter alone (no HTTP), over a redis-server of its own
 * (bench/lib/private-redis.ts), 16 requests at a time (--in-flight N): open (the reserve script, with the rate
 * limit folded in) and settle (the settle script, its ledger row flushed to PGlite, and the
 * unwritten mark cleared), or open + release with --release. Prints, per request:
 * redis-server's CPU (/proc/<pid>/stat; noisy on a shared machine), `INFO commandstats` calls
 * and usec per call (wall time inside Redis, so it also counts the waits of a loaded machine),
 * and with --callgrind the instructions redis-server executed (valgrind's callgrind, zeroed and
 * dumped around the window: the figure that does not move with the machine's load; the
 * server runs ~50 times slower, use --requests 2000). The requests a second one Redis core
 * can admit is 1e6 / (CPU µs per request).
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RedisClient } from 'bun';
import { hashSecret } from '../src/auth/api-keys';
import { bootstrapAdminKey } from '../src/auth/bootstrap';
import { createDeps } from '../src/boot';
import { parseConfig } from '../src/config';
import { openPglite } from '../src/db/open';
import { createRedisStore } from '../src/kv/redis';
import type { MeterOpenInput } from '../src/billing/meter';
import { cpuMicros, killAll } from './lib/proc';
import { startPrivateRedis } from './lib/private-redis';
import { benchConfig, BENCH_MODEL } from './servers/svc-config';

const argv = Bun.argv.slice(2);
const opt = (name: string, dflt: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1]! : dflt);
const requests = Number(opt('--requests', '20000'));
const rounds = Number(opt('--rounds', '3'));
const callgrind = argv.includes('--callgrind');
const settle = !argv.includes('--release');
// --in-flight 1: every admission alone in its turn (RESERVE, not a group), as on a quiet machine.
const inFlight = Number(opt('--in-flight', '16'));

const cgDir = callgrind ? mkdtempSync(join(tmpdir(), 'svc-callgrind-')) : null;
// --redis-url: a Redis already running (on this machine: its CPU is read through /proc).
const given = argv.includes('--redis-url') ? { url: opt('--redis-url', ''), stop: async () => {} } : null;
const server =
  given ??
  (await startPrivateRedis({
    wrap: cgDir ? ['valgrind', '--tool=callgrind', `--callgrind-out-file=${cgDir}/cg.out.%p`, '--dump-instr=no'] : undefined,
  }));
const admin = new RedisClient(server.url);
const redisPid = Number(((await admin.send('INFO', ['server'])) as string).match(/^process_id:(\d+)/m)?.[1]);

const config = parseConfig({ ...benchConfig('http://upstream.invalid'), logLevel: 'warn', bootstrapCreditUsd: '1000000000' });
const dataDir = mkdtempSync(join(tmpdir(), 'svc-redis-cost-'));
const storage = await openPglite({ dataDir });
// Under callgrind Redis runs ~50 times slower: a group of admissions (one script) can outlast the
// command timeout's watchdog (1.5 s), which would close the connection.
const kv = await createRedisStore(server.url, cgDir ? { redis: { commandTimeoutMs: 60_000 } } : {});
const deps = await createDeps(config, { storage, kv, fetch });
const key = (await bootstrapAdminKey(storage.db, config.bootstrapCreditUsd))!;
const apiKey = (await deps.keys.lookup(hashSecret(key)))!;
const caller = { accountId: apiKey.accountId, tier: apiKey.tier, via: 'api_key' as const, apiKey, wallet: null };
const model = deps.models.get(BENCH_MODEL)!;

let n = 0;
async function one() {
  const ctx = { requestId: `r-${++n}`, startedAt: performance.now(), caller } as unknown as MeterOpenInput['ctx'];
  const t = await deps.meter.open({ ctx, model, estimatedPromptTokens: 10, maxCompletionTokens: 64 });
  if (settle) await t.settle({ promptTokens: 10, completionTokens: 20, executionMs: 5 });
  else await t.release();
}

async function drive(count: number) {
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      for (let i = 0; i < count / inFlight; i++) await one();
    }),
  );
  await deps.meter.flush();
}

const commandStats = async () => {
  const out = new Map<string, { calls: number; usec: number }>();
  const info = (await admin.send('INFO', ['commandstats'])) as string;
  for (const m of info.matchAll(/^cmdstat_(\S+):calls=(\d+),usec=(\d+)/gm)) out.set(m[1]!, { calls: Number(m[2]), usec: Number(m[3]) });
  return out;
};

/** Instructions callgrind counted since its last zeroing: dumps, and reads the newest dump's totals. */
function callgrindDump(): number {
  Bun.spawnSync(['callgrind_control', '-d', String(redisPid)]);
  // Each dump is cg.out.<pid>.<n>; the file without <n> is only written at exit.
  const dumps = readdirSync(cgDir!).filter((f) => /^cg\.out\.\d+\.\d+$/.test(f));
  const newest = dumps.sort((a, b) => Number(a.split('.').pop()) - Number(b.split('.').pop())).pop()!;
  const text = readFileSync(join(cgDir!, newest), 'utf8');
  if (process.env.CALLGRIND_KEEP) Bun.spawnSync(['cp', join(cgDir!, newest), process.env.CALLGRIND_KEEP]);
  return Number(text.match(/^(?:summary|totals): (\d+)/m)?.[1] ?? NaN);
}

async function round() {
  if (callgrind) Bun.spawnSync(['callgrind_control', '-z', String(redisPid)]);
  const before = await commandStats();
  const cpu0 = cpuMicros(redisPid);
  await drive(requests);
  const cpu = (cpuMicros(redisPid) - cpu0) / requests;
  const after = await commandStats();
  const ir = callgrind ? callgrindDump() / requests : NaN;
  const rows: string[] = [];
  for (const [name, a] of after) {
    const b = before.get(name) ?? { calls: 0, usec: 0 };
    const calls = a.calls - b.calls;
    if (calls < requests / 100 || name === 'info') continue;
    rows.push(`${name} ${(calls / requests).toFixed(2)}x ${((a.usec - b.usec) / calls).toFixed(1)}us`);
  }
  console.log(
    `redis-server CPU ${cpu.toFixed(1)} µs/request (${Math.round(1e6 / cpu)} requests/s a core)` +
      (callgrind ? `; ${Math.round(ir)} instructions/request` : '') +
      `\n  commands: ${rows.join(', ')}`,
  );
}

try {
  console.log(`${settle ? 'open + settle' : 'open + release'}, ${requests} requests a round`);
  await drive(Math.min(requests, 2000));
  for (let r = 0; r < rounds; r++) await round();
} finally {
  await deps.meter.close().catch(() => {});
  admin.close();
  await kv.close();
  await server.stop();
  killAll();
  rmSync(dataDir, { recursive: true, force: true });
  if (cgDir) rmSync(cgDir, { recursive: true, force: true });
}
process.exit(0);
