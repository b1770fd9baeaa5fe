/**
 * `bun bench/tail.ts [--backend redis+postgres] [--seconds 10] [--rounds 3] [--stream] [--variants .,/tmp/svc-before]`:
 * p99 latency at saturation (64 connections, no rate cap) and the event-loop delay behind
 * it, for the bare proxy and one svc per variant, measured in interleaved rounds (bare, A, B,
 * bare, A, B, ...) so the machine's drift falls on every target alike. A variant is a checkout
 * to run `src/index.ts` from, optionally with config sections over the bench's:
 * `.@{"billing":{"flushSliceMs":1000}}`. Each round also runs 1,000 req/s, where a loop delay
 * of more than a few ms is a task that did not yield. SVC_ENV='K=V,K=V' passes environment to
 * every svc (BUN_JSC_logGC=1 with BENCH_LOG_DIR=<dir> keeps its GC log). Prints one line per
 * measurement (with svc's ledger backlog at its end), then median and min per target, the
 * svc / bare ratio, and p99 / mean latency (mean = 64 / requests/s by Little's law).
 */
import { scrapeBacklog } from './lib/ledger-backlog';
import { startBaseline } from './lib/baseline';
import { runLoad, type LoadResult } from './load/http-load';
import { delayBetween, scrapeDelay, type EventLoopWindow } from './lib/event-loop';
import { cpuMicros, killAll } from './lib/proc';
import { round } from './lib/stats';
import { BODIES } from './lib/targets';
import { startSvc, svcEnvFromProcess, type SvcUnderTest } from './servers/svc';

const argv = Bun.argv.slice(2);
const opt = (name: string, dflt: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1]! : dflt);
const seconds = Number(opt('--seconds', '10'));
const rounds = Number(opt('--rounds', '3'));
const backend = opt('--backend', 'memory+pglite') as 'memory+pglite' | 'redis+postgres';
const variants = opt('--variants', '.').split(',');
const body = argv.includes('--stream') ? BODIES.stream : BODIES.json;
const svcEnv = svcEnvFromProcess();

interface Target {
  name: string;
  url: string;
  metricsUrl: string;
  headers: Record<string, string>;
  pid: number;
}

/** One measured load: latency, the loop delay over it and CPU µs per request. */
interface Sample {
  load: LoadResult;
  loop: EventLoopWindow | null;
  cpuUs: number;
  /** Settlements still queued for the ledger at the end (svc only): a writer that falls behind shows here. */
  backlog: number | null;
}

async function measure(t: Target, connections: number, rate?: number): Promise<Sample> {
  const before = await scrapeDelay(t.metricsUrl);
  const cpu0 = cpuMicros(t.pid);
  const load = await runLoad({
    url: t.url,
    headers: { 'content-type': 'application/json', ...t.headers },
    body,
    connections,
    durationS: seconds,
    rate,
  });
  const cpuUs = (cpuMicros(t.pid) - cpu0) / Math.max(1, load.requests - load.non2xx);
  const loop = delayBetween(before, await scrapeDelay(t.metricsUrl));
  return { load, loop, cpuUs, backlog: await scrapeBacklog(t.metricsUrl) };
}

const line = (name: string, phase: string, s: Sample) =>
  `${name.padEnd(22)} ${phase.padEnd(8)} rps ${String(s.load.rps).padStart(5)}  p50 ${String(s.load.latencyMs.p50).padStart(3)} ms  p99 ${String(s.load.latencyMs.p99).padStart(4)} ms  loop p99 ${s.loop?.p99Ms ?? '-'} max ${s.loop?.maxMs ?? '-'} ms  cpu ${s.cpuUs.toFixed(0)} µs/req  non2xx ${s.load.non2xx}${s.backlog === null ? '' : `  ledger backlog ${s.backlog}`}`;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;

async function main() {
  const { upstreamUrl, bare, bareUrl } = await startBaseline();
  const svcs: SvcUnderTest[] = [];
  try {
    const targets: Target[] = [
      {
        name: 'bare',
        url: `${bareUrl}/chat/completions`,
        metricsUrl: `${bareUrl}/metrics`,
        headers: {},
        pid: bare.pid,
      },
    ];
    for (const [i, variant] of variants.entries()) {
      const port = 18000 + ((process.pid + i * 7) % 1000);
      // `dir` or `dir@{"billing":{...}}`: a checkout, and config sections over the bench's.
      const [cwd, config] = variant.includes('@')
        ? [variant.slice(0, variant.indexOf('@')), JSON.parse(variant.slice(variant.indexOf('@') + 1))]
        : [variant, undefined];
      const svc = await startSvc({ port, upstreamUrl, backend, cwd, env: svcEnv, config });
      svcs.push(svc);
      const origin = new URL(svc.url).origin;
      targets.push({
        name: `svc ${variant}`,
        url: `${svc.url}/chat/completions`,
        metricsUrl: `${origin}/metrics`,
        headers: { authorization: `Bearer ${svc.key}` },
        pid: svc.child.pid,
      });
    }
    // Warm-up at full speed until the JIT has settled (see bench/phases/throughput.ts).
    for (const t of targets)
      await runLoad({ url: t.url, headers: { 'content-type': 'application/json', ...t.headers }, body, connections: 16, durationS: 15 });
    const results = new Map<string, { sat: Sample[]; fixed: Sample[] }>(targets.map((t) => [t.name, { sat: [], fixed: [] }]));
    for (let r = 0; r < rounds; r++)
      for (const t of targets) {
        const sat = await measure(t, 64);
        console.log(line(t.name, 'c64', sat));
        const fixed = await measure(t, 16, 1000);
        console.log(line(t.name, '1000/s', fixed));
        results.get(t.name)!.sat.push(sat);
        results.get(t.name)!.fixed.push(fixed);
      }
    const bareP99 = median(results.get('bare')!.sat.map((s) => s.load.latencyMs.p99));
    console.log(`\nmedian (min) over ${rounds} rounds, ${backend}, ${argv.includes('--stream') ? '50-chunk streams' : 'JSON'}`);
    for (const [name, { sat, fixed }] of results) {
      const stat = (xs: number[]) => `${median(xs)} (${Math.min(...xs)})`;
      const p99 = sat.map((s) => s.load.latencyMs.p99);
      // Little's law: with 64 requests always in flight, the mean latency is 64 / throughput, so p99 / mean
      // separates a long tail (stalls) from a proxy that is slower per request.
      const tail = sat.map((s) => round((s.load.latencyMs.p99 * s.load.rps) / 64 / 1000, 1));
      console.log(
        `${name.padEnd(22)} c64 p99 ${stat(p99)} ms = ${(median(p99) / bareP99).toFixed(1)}x bare, rps ${stat(sat.map((s) => s.load.rps))}, p99/mean ${stat(tail)}, ` +
          `loop p99 c64 ${stat(sat.map((s) => s.loop?.p99Ms ?? NaN))} ms, loop p99 1000/s ${stat(fixed.map((s) => s.loop?.p99Ms ?? NaN))} ms ` +
          `max ${stat(fixed.map((s) => s.loop?.maxMs ?? NaN))} ms, cpu 1000/s ${stat(fixed.map((s) => Math.round(s.cpuUs)))} µs/req`,
      );
    }
    for (const s of svcs) for (const l of s.child.tail().split('\n')) if (l.includes('stall')) console.log(l);
  } finally {
    for (const s of svcs) await s.close();
    killAll();
  }
}

await main();
process.exit(0);
