/**
 * `bun bench/threads.ts [--backend redis+postgres] [--seconds 10] [--rate 1000] [--stream [--no-usage] | --responses | --embeddings | --long-json] [--cache-hit] [--profile]
 * [--cwd DIR[,DIR...]] [--runs N] [--no-bare] [--own-redis] [--warm S] [--config JSON] [--connections N]`:
 * CPU per request of the bare proxy and svc under the system bench's fixed-rate load, split
 * by thread (from /proc/<pid>/task/<tid>/{comm,stat}): what the in-process harness cannot
 * see (Bun's HTTP server and fetch client, PGlite's and the JIT's threads, GC helpers). With
 * --profile, svc runs under `bun --cpu-prof` and the measured window's samples are summed by
 * function. --long-json: the upstream's JSON answer holds 4,000 words (~20 KB, over Bun's cork
 * buffer, src/http/large-body.ts). --no-usage: the upstream's streams report no usage (svc counts the tokens). SVC_MAX_HTTP=unset starts svc without BUN_CONFIG_MAX_HTTP_REQUESTS; SVC_ENV='K=V,K=V'
 * passes environment to svc. On redis+postgres it also prints the Redis server's and svc's
 * Postgres backends' CPU per request and Redis's commands per request (bench/lib/backing-cpu.ts).
 * --cwd runs svc from each checkout in turn, --runs times (a before/after, interleaved);
 * --own-redis gives each svc a fresh redis-server (bench/lib/private-redis.ts). --warm: seconds of
 * full-speed warm-up before the window (default 5). --responses: a streamed POST /responses (the
 * families phase's body; the bare proxy relays the upstream's own Responses stream), best at the
 * families phase's --rate 400.
 */
import { startBaseline } from './lib/baseline';
import { mkdtempSync } from 'node:fs';
import { summariseProfile } from './lib/cpu-profile';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runLoad } from './load/http-load';
import { killAll, threadCpu } from './lib/proc';
import { BODIES } from './lib/targets';
import { CACHE_BODIES } from './phases/cache';
import { FAMILY_BODIES } from './phases/families';
import { backingServices } from './lib/backing-cpu';
import { startSvc, svcEnvFromProcess } from './servers/svc';
import { startPrivateRedis } from './lib/private-redis';
import { ledgerSettled } from './lib/ledger-backlog';

const argv = Bun.argv.slice(2);
const opt = (name: string, dflt: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1]! : dflt);
const seconds = Number(opt('--seconds', '10'));
const rate = Number(opt('--rate', '1000'));
const backend = opt('--backend', 'memory+pglite') as 'memory+pglite' | 'redis+postgres';
const embeddings = argv.includes('--embeddings');
const stream = argv.includes('--stream');
// --cache-hit: the same request with `cache=use` every time, so all but the first are response-cache hits.
const cacheHit = argv.includes('--cache-hit');
const responses = argv.includes('--responses');
const body = responses
  ? FAMILY_BODIES.responsesStream
  : embeddings
    ? BODIES.embeddings
    : cacheHit
      ? stream
        ? CACHE_BODIES.hitStream
        : CACHE_BODIES.hitJson
      : stream
        ? BODIES.stream
        : BODIES.json;
const path = responses ? '/responses' : embeddings ? '/embeddings' : '/chat/completions';
const dirs = opt('--cwd', process.cwd()).split(',');
const runs = Number(opt('--runs', '1'));
const warmS = Number(opt('--warm', '5'));
const profileDir = argv.includes('--profile') ? mkdtempSync(join(tmpdir(), 'svc-prof-')) : null;
const svcEnv = svcEnvFromProcess();
const ownRedis = argv.includes('--own-redis');
// --config JSON: sections merged over the bench config (`{"observability":{"requestLog":{"enabled":false}}}`).
const config = argv.includes('--config') ? (JSON.parse(opt('--config', '{}')) as Record<string, unknown>) : undefined;

type Backing = Awaited<ReturnType<typeof backingServices>>;

async function measure(name: string, pid: number, url: string, headers: Record<string, string>, backing?: Backing, metricsUrl?: string) {
  await runLoad({ url, headers, body, connections: 16, durationS: warmS }); // warm-up at full speed
  await Bun.sleep(2000);
  // The warm-up's ledger backlog is written before the window, this window's rows inside it.
  const warmDrainMs = await ledgerSettled(metricsUrl);
  const before = threadCpu(pid);
  const backingBefore = await backing?.read();
  const load = await runLoad({ url, headers, body, connections: Number(opt('--connections', '16')), durationS: seconds, rate });
  const drainMs = await ledgerSettled(metricsUrl);
  const after = threadCpu(pid);
  const ok = load.requests - load.non2xx;
  const rows = [...after].map(([t, v]) => [t, (v - (before.get(t) ?? 0)) / ok] as const).filter(([, v]) => v > 0.5);
  rows.sort((a, b) => b[1] - a[1]);
  const total = rows.reduce((s, [, v]) => s + v, 0);
  console.log(
    `${name}: ${total.toFixed(1)} µs CPU per request (${ok} ok, ${load.non2xx} non-2xx, p50 ${load.latencyMs.p50} ms, p99 ${load.latencyMs.p99} ms)`,
  );
  for (const [t, v] of rows) console.log(`  ${t.padEnd(20)} ${v.toFixed(1)}`);
  if (metricsUrl) console.log(`  ledger drain: ${warmDrainMs} ms after the warm-up (before the window), ${drainMs} ms after the window`);
  if (backing && backingBefore) await backing.report(backingBefore, ok);
}

async function main() {
  const { upstreamUrl, upstreamRoot, bare, bareUrl } = await startBaseline();
  if (argv.includes('--long-json'))
    await fetch(`${upstreamRoot}/__bench/config`, { method: 'POST', body: JSON.stringify({ chunks: 50, delayMs: 0, jsonWords: 4000 }) });
  if (argv.includes('--no-usage'))
    await fetch(`${upstreamRoot}/__bench/config`, { method: 'POST', body: JSON.stringify({ chunks: 50, delayMs: 0, usage: 'never' }) });
  const extraArgs = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const maxHttpRequests = process.env.SVC_MAX_HTTP === 'unset' ? null : undefined;
  try {
    if (!argv.includes('--no-bare')) await measure('bare', bare.pid, `${bareUrl}${path}`, {});
    for (let run = 0; run < runs; run++)
      for (const cwd of dirs) {
        const port = 18000 + (process.pid % 1000);
        // --own-redis: a fresh redis-server for each svc, so no run pays for an earlier run's keys expiring.
        const own = ownRedis && backend === 'redis+postgres' ? await startPrivateRedis() : null;
        const redisUrl = own?.url ?? process.env.REDIS_URL;
        const svc = await startSvc({ port, upstreamUrl, backend, extraArgs, maxHttpRequests, env: svcEnv, cwd, redisUrl, config });
        const backing = svc.databaseUrl ? await backingServices(redisUrl!, svc.databaseUrl) : undefined;
        try {
          const name = `svc ${backend}${dirs.length > 1 ? ` ${cwd}` : ''}`;
          await measure(
            name,
            svc.child.pid,
            `${svc.url}${path}`,
            { authorization: `Bearer ${svc.key}` },
            backing,
            `${new URL(svc.url).origin}/metrics`,
          );
        } finally {
          backing?.close();
          await svc.close();
          await own?.stop();
        }
      }
  } finally {
    killAll();
  }
  if (profileDir) summariseProfile(profileDir, seconds);
}

await main();
process.exit(0);
