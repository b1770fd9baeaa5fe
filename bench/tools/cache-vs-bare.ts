/**
 * `bun bench/tools/cache-vs-bare.ts [--rounds N] [--backend memory+pglite|redis+postgres] [--rate R]`:
 * the response cache's hit against the bare proxy's call, over HTTP, interleaved round by round
 * (bare JSON, svc hit JSON, svc proxied JSON, bare stream, svc hit stream). The before/after
 * measure for a change to a hit's fixed cost; `npm run bench` reports the same rows in its cache phase.
 */
import { startBaseline } from '../lib/baseline';
import { killAll } from '../lib/proc';
import { bareTarget, svcTarget } from '../lib/route-targets';
import { BODIES } from '../lib/targets';
import { CACHE_BODIES } from '../phases/cache';
import { measureLoad } from '../phases/throughput';
import { startSvc } from '../servers/svc';

const argv = Bun.argv.slice(2);
const num = (name: string, dflt: number) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : dflt);
const rounds = num('--rounds', 3);
const rate = num('--rate', 1000);
const phaseS = num('--seconds', 3);
const backend = (argv.includes('--backend') ? argv[argv.indexOf('--backend') + 1] : 'memory+pglite') as 'memory+pglite' | 'redis+postgres';

process.on('SIGINT', () => {
  killAll();
  process.exit(130);
});

const { bare, bareUrl, upstreamUrl } = await startBaseline({ BUN_CONFIG_MAX_HTTP_REQUESTS: '65535' });
const svc = await startSvc({ port: 18000 + Math.floor(Math.random() * 1000), upstreamUrl, backend });
const b = bareTarget(bareUrl, bare);
const s = svcTarget(`svc:${backend}`, svc);
const load = (t: typeof b, body: string, r = rate) => measureLoad(t, body, { connections: 16, durationS: phaseS, rate: r });
// The JIT's warm-up at full speed, as the bench's settle phase does.
for (const [t, body] of [
  [b, BODIES.json],
  [s, CACHE_BODIES.hitJson],
  [s, BODIES.json],
  [b, BODIES.stream],
  [s, CACHE_BODIES.hitStream],
] as const)
  await measureLoad(t, body, { connections: 16, durationS: 4 });

const rows: Record<string, number[]> = {};
const add = (k: string, v: number | null) => (rows[k] ??= []).push(v ?? NaN);
for (let i = 0; i < rounds; i++) {
  add('bare json', (await load(b, BODIES.json)).cpuPerRequestUs);
  add('svc hit json', (await load(s, CACHE_BODIES.hitJson)).cpuPerRequestUs);
  add('svc proxied json', (await load(s, BODIES.json)).cpuPerRequestUs);
  add('bare stream', (await load(b, BODIES.stream, 400)).cpuPerRequestUs);
  add('svc hit stream', (await load(s, CACHE_BODIES.hitStream, 400)).cpuPerRequestUs);
}
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
for (const [k, v] of Object.entries(rows)) console.log(`${k.padEnd(18)} median ${median(v).toFixed(1).padStart(7)} µs   [${v.join(', ')}]`);
console.log(`hit/bare json ${(median(rows['svc hit json']!) / median(rows['bare json']!)).toFixed(2)}`);
console.log(`hit/bare stream ${(median(rows['svc hit stream']!) / median(rows['bare stream']!)).toFixed(2)}`);
await svc.close();
killAll();
process.exit(0);
