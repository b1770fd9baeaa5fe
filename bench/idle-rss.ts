/**
 * `bun bench/idle-rss.ts`: svc's RSS right after a first start (fresh data dir, no traffic
 * but the readiness probe), as `bun run bench` reads it, repeated to show the spread.
 *
 * Each run starts `bun src/index.ts` as the bench does (bench/servers/svc.ts), then reads
 * VmRSS once it settles (the bench's reading) and again 10 s after start, with the anonymous /
 * file-backed split from /proc/<pid>/smaps_rollup.
 *
 * Flags: --runs N (default 3), --backend memory+pglite|redis+postgres (both when DATABASE_URL and
 * REDIS_URL are set), --cwd DIR[,DIR...] (checkouts to compare, interleaved run by run: a
 * before/after on the same machine state; this one by default), --bun-arg ARG (passed to bun before
 * src/index.ts, e.g. --smol). Environment variables (MIMALLOC_*, ...) pass through to svc.
 */
import { readFileSync } from 'node:fs';
import { rssBytes, settledRss } from './lib/proc';
import { startSvc } from './servers/svc';

const MB = 1024 * 1024;
const argv = Bun.argv.slice(2);
const arg = (name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const runs = Number(arg('--runs') ?? 3);
const dirs = (arg('--cwd') ?? process.cwd()).split(',');
const extraArgs = arg('--bun-arg') ? [arg('--bun-arg') as string] : [];
const backends: ('memory+pglite' | 'redis+postgres')[] = arg('--backend')
  ? [arg('--backend') as 'memory+pglite' | 'redis+postgres']
  : process.env.DATABASE_URL && process.env.REDIS_URL
    ? ['memory+pglite', 'redis+postgres']
    : ['memory+pglite'];

function freePort(): number {
  const s = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
  const port = s.port;
  s.stop(true);
  return port;
}

/** Anonymous and file-backed resident memory of `pid`, in MB. */
function rssSplit(pid: number) {
  const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const kb = (field: string) => Number(rollup.match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'))?.[1] ?? Number.NaN);
  return { anonMB: Math.round(kb('Anonymous') / 1024), fileMB: Math.round((kb('Rss') - kb('Anonymous')) / 1024) };
}

const results: Record<string, { settled: number[]; at10s: number[] }> = {};
for (let run = 0; run < runs; run++) {
  for (const backend of backends) {
    for (const cwd of dirs) {
      const started = Date.now();
      const svc = await startSvc({ port: freePort(), upstreamUrl: 'http://127.0.0.1:9/v1', backend, cwd, extraArgs });
      try {
        const settled = Math.round((await settledRss(svc.child.pid, 500, 10_000)) / MB);
        await Bun.sleep(Math.max(0, 10_000 - (Date.now() - started)));
        const at10s = Math.round(rssBytes(svc.child.pid) / MB);
        const key = `${backend} ${cwd}`;
        (results[key] ??= { settled: [], at10s: [] }).settled.push(settled);
        results[key].at10s.push(at10s);
        const split = rssSplit(svc.child.pid);
        process.stdout.write(`${key}: settled ${settled} MB, at 10 s ${at10s} MB (anon ${split.anonMB}, file ${split.fileMB})\n`);
      } finally {
        await svc.close();
      }
    }
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const [key, r] of Object.entries(results))
  process.stdout.write(
    `${key}: settled min ${Math.min(...r.settled)} median ${median(r.settled)} max ${Math.max(...r.settled)} MB; ` +
      `at 10 s min ${Math.min(...r.at10s)} median ${median(r.at10s)} max ${Math.max(...r.at10s)} MB\n`,
  );
