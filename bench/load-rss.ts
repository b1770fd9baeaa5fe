/**
 * `bun bench/load-rss.ts`: does svc's memory come back after load? Starts the bench upstream and
 * svc (as `npm run bench` does, fresh data dir), reads the settled idle RSS, drives a load phase
 * (autocannon through bench/load: JSON then 50-chunk streams, 50 connections, no rate cap),
 * then reads RSS 10 s after the load ends and compares it with the idle reading (target: within
 * 25 %). Each reading carries the anonymous / file-backed split and the largest mappings from
 * /proc/<pid>/smaps.
 *
 * Flags: --runs N (default 1), --load-s S (default 10, split between JSON and streams),
 * --backend memory+pglite|redis+postgres (default memory+pglite), --cwd DIR[,DIR...] (checkouts
 * interleaved run by run, for before/after), --probe (preloads bench/lib/memory-probe.ts: JS heap,
 * external and ArrayBuffer bytes before and after a full collection, at idle and at +10 s; the
 * probe's collection changes what follows, so its runs are for diagnosis, not for the figures),
 * --tail S (also read RSS S seconds after the load, default 0), --soak S (instead: the full run's soak phase,
 * bench/phases/soak.ts, 10 s of warm-up then S s of alternating JSON and streams at 1,500 and 300 req/s,
 * RSS 2 s after each, target: within 10 %; then RSS again 10 s after the soak), --rate R (requests/s over all connections in
 * each half; full speed when absent: a fixed rate gives every variant the same load). Environment variables (MIMALLOC_*,
 * ...) pass through to svc; `SVC_ENV='SVC_LOG_LEVEL=debug'` sets svc's own (its lines go to
 * BENCH_LOG_DIR when set).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { delayBetween, scrapeDelay } from './lib/event-loop';
import { measureLoad } from './phases/throughput';
import { soakPhase } from './phases/soak';
import { rssBytes, settledRss, startChild } from './lib/proc';
import { BODIES, type Target } from './lib/targets';
import { startSvc, svcEnvFromProcess } from './servers/svc';

const MB = 1024 * 1024;
const argv = Bun.argv.slice(2);
const arg = (name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const runs = Number(arg('--runs') ?? 1);
const loadS = Number(arg('--load-s') ?? 10);
const tailS = Number(arg('--tail') ?? 0);
const rate = arg('--rate') ? Number(arg('--rate')) : undefined;
const probe = argv.includes('--probe');
const soakS = Number(arg('--soak') ?? 0);
const backend = (arg('--backend') ?? 'memory+pglite') as 'memory+pglite' | 'redis+postgres';
const dirs = (arg('--cwd') ?? process.cwd()).split(',');
// --config JSON: sections merged over the bench config (`{"observability":{"requestLog":{"enabled":false}}}`).
const config = arg('--config') ? (JSON.parse(arg('--config')!) as Record<string, unknown>) : undefined;

function freePort(): number {
  const s = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
  const port = s.port;
  s.stop(true);
  return port;
}

/** Resident MB by kind of mapping: anonymous, file-backed, and the three largest anonymous mappings (size/rss). */
function mappings(pid: number): string {
  const text = readFileSync(`/proc/${pid}/smaps`, 'utf8');
  const blocks = text.split(/\n(?=[0-9a-f]+-[0-9a-f]+ )/);
  let anon = 0;
  let file = 0;
  const big: { size: number; rss: number; name: string }[] = [];
  for (const b of blocks) {
    const head = b.slice(0, b.indexOf('\n')).split(/\s+/);
    const name = `${head[1]} ${head.slice(5).join(' ') || 'anon'}`;
    const kb = (f: string) => Number(b.match(new RegExp(`^${f}:\\s+(\\d+) kB`, 'm'))?.[1] ?? 0);
    const a = kb('Anonymous');
    anon += a;
    file += kb('Rss') - a;
    if (a > 0) big.push({ size: kb('Size'), rss: kb('Rss'), name });
  }
  big.sort((x, y) => y.rss - x.rss);
  const top = big
    .slice(0, 6)
    .map((m) => `${Math.round(m.rss / 1024)}/${Math.round(m.size / 1024)} ${m.name}`)
    .join('; ');
  return `anon ${Math.round(anon / 1024)}, file ${Math.round(file / 1024)}; largest anon rss/size MB: ${top}`;
}

/** Asks the preloaded probe for its line (`--probe` only). */
let probes = 0;
async function probeLine(svc: Awaited<ReturnType<typeof startSvc>>): Promise<string> {
  const n = ++probes;
  process.kill(svc.child.pid, 'SIGUSR2');
  const [line] = await svc.child.waitFor(new RegExp(`^memprobe ${n} .*`), 10_000).catch(() => ['memprobe: no answer']);
  return line!;
}

const upstream = startChild('upstream', [process.execPath, 'bench/servers/upstream.ts']);
const [, upPort] = await upstream.waitFor(/upstream listening on (\d+)/, 10_000);
const upstreamUrl = `http://127.0.0.1:${upPort}/v1`;
const rows: { cwd: string; idle: number; peak: number; after: number }[] = [];
const soaks: { cwd: string; growth: number }[] = [];
try {
  for (let run = 0; run < runs; run++) {
    for (const cwd of dirs) {
      const extraArgs = probe ? ['--preload', join(import.meta.dir, 'lib/memory-probe.ts')] : [];
      const svc = await startSvc({ port: freePort(), upstreamUrl, backend, cwd, extraArgs, env: svcEnvFromProcess(), config });
      probes = 0;
      try {
        const pid = svc.child.pid;
        const target: Target = {
          name: `svc:${backend}`,
          chatUrl: `${svc.url}/chat/completions`,
          embeddingsUrl: `${svc.url}/embeddings`,
          headers: { authorization: `Bearer ${svc.key}` },
          pid,
        };
        if (soakS > 0) {
          const soak = await soakPhase(target, BODIES, { warmupS: 10, soakS });
          process.stdout.write(`${cwd}: soak ${JSON.stringify(soak)}\n`);
          // The phase reads RSS 2 s after the load; a later reading says whether that was still the load's.
          await Bun.sleep(8_000);
          process.stdout.write(`  +10 s: ${Math.round(rssBytes(pid) / MB)} MB (${mappings(pid)})\n`);
          if (probe) process.stdout.write(`  +10 s ${await probeLine(svc)}\n`);
          soaks.push({ cwd, growth: soak.growth });
          continue;
        }
        const idle = await settledRss(pid, 500, 10_000);
        process.stdout.write(`${cwd}: idle ${Math.round(idle / MB)} MB (${mappings(pid)})\n`);
        if (probe) process.stdout.write(`  idle ${await probeLine(svc)}\n`);
        let peak = idle;
        const sampler = setInterval(() => (peak = Math.max(peak, rssBytes(pid))), 250);
        const half = Math.max(1, Math.round(loadS / 2));
        const json = await measureLoad(target, BODIES.json, { connections: 50, durationS: half, rate });
        const stream = await measureLoad(target, BODIES.stream, { connections: 50, durationS: loadS - half || 1, rate });
        clearInterval(sampler);
        // The last request's completion, not the end of the ledger's drain after it (measureLoad waits for that).
        const ended = Date.now() - (performance.now() - stream.endedAt);
        // The event loop's longest stall in the quiet 10 s (the idle collection's pause shows here).
        const metricsUrl = `${new URL(svc.url).origin}/metrics`;
        const delayBefore = await scrapeDelay(metricsUrl);
        await Bun.sleep(10_000 - (Date.now() - ended));
        const after = rssBytes(pid);
        const quiet = delayBetween(delayBefore, await scrapeDelay(metricsUrl));
        process.stdout.write(
          `  load: ${json.requests} JSON (${json.non2xx + json.errors} failed), ${stream.requests} streams ` +
            `(${stream.non2xx + stream.errors} failed); peak ${Math.round(peak / MB)} MB; ` +
            `longest event-loop stall in the quiet 10 s <= ${quiet?.maxMs ?? 'n/a'} ms\n` +
            `  +10 s: ${Math.round(after / MB)} MB = ${Math.round((after / idle) * 100)} % of idle (${mappings(pid)})\n`,
        );
        if (probe) process.stdout.write(`  +10 s ${await probeLine(svc)}\n`);
        if (tailS > 10) {
          await Bun.sleep(tailS * 1000 - (Date.now() - ended));
          process.stdout.write(`  +${tailS} s: ${Math.round(rssBytes(pid) / MB)} MB (${mappings(pid)})\n`);
        }
        rows.push({ cwd, idle, peak, after });
      } finally {
        await svc.close();
      }
    }
  }
} finally {
  await upstream.stop();
}
for (const cwd of soakS > 0 ? dirs : []) {
  const growth = soaks.filter((r) => r.cwd === cwd).map((r) => `${Math.round(r.growth * 1000) / 10} %`);
  process.stdout.write(`${cwd}: RSS growth over a ${soakS} s soak ${growth.join(' / ')} (target <= 10 %)\n`);
}
for (const cwd of soakS > 0 ? [] : dirs) {
  const mine = rows.filter((r) => r.cwd === cwd);
  const pct = mine.map((r) => Math.round((r.after / r.idle) * 100));
  process.stdout.write(
    `${cwd}: idle ${mine.map((r) => Math.round(r.idle / MB)).join('/')} MB, peak ${mine.map((r) => Math.round(r.peak / MB)).join('/')} MB, ` +
      `+10 s ${mine.map((r) => Math.round(r.after / MB)).join('/')} MB (${pct.join('/')} % of idle; target <= 125 %)\n`,
  );
}
