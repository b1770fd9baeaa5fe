/**
 * `bun bench/fetch-cost.ts [--rounds 6] [--calls 6000]`: CPU of this process per upstream
 * chat call made with Bun's `fetch` (16 at a time) to the bench upstream running in its own
 * process, so the figure is the client's alone (serving thread and Bun's `HTTP Client`
 * thread). It compares, interleaved, the ways svc could make the call: the body as a JSON
 * string or as bytes; a per-call AbortController and first-byte timer, an existing signal or
 * none; the answer read with `json()`, `text()` + `JSON.parse` or streamed. It answers
 * whether those choices explain the `fetch` share of svc's profile (docs/perf-notes/2026-11-24.md, "CPU per
 * request: what did not move it (2026-11-24)").
 */
import { startChild, killAll } from './lib/proc';

const argv = Bun.argv.slice(2);
const num = (name: string, dflt: number) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : dflt);
const rounds = num('--rounds', 6);
const calls = num('--calls', 6000);
const CONCURRENCY = 16;
const OUTER = new AbortController();

const upstream = startChild('upstream', [process.execPath, 'bench/servers/upstream.ts']);
const [, port] = await upstream.waitFor(/upstream listening on (\d+)/, 10_000);
const url = `http://127.0.0.1:${port}/v1/chat/completions`;
const request = { model: 'bench', messages: [{ role: 'user', content: 'Say hello.' }], max_tokens: 64 };
const headers = { 'content-type': 'application/json' };

/** How one variant makes the call. */
interface Variant {
  name: string;
  bytes: boolean;
  /** `own`: a new AbortController and first-byte timer per call (svc's upstream call); `outer`: an existing signal, as the metered call's would be; `none`. */
  signal: 'own' | 'outer' | 'none';
  read: 'json' | 'text' | 'stream';
}

const VARIANTS: Variant[] = [
  { name: "svc's: string body, own signal + timer, json()", bytes: false, signal: 'own', read: 'json' },
  { name: 'bytes body', bytes: true, signal: 'own', read: 'json' },
  { name: "the caller's signal, no controller, no timer", bytes: false, signal: 'outer', read: 'json' },
  { name: 'no signal, no timer', bytes: false, signal: 'none', read: 'json' },
  { name: 'text() + JSON.parse', bytes: false, signal: 'own', read: 'text' },
  { name: 'answer streamed, not parsed', bytes: false, signal: 'own', read: 'stream' },
];

async function call(v: Variant): Promise<unknown> {
  const text = JSON.stringify(request);
  const abort = v.signal === 'own' ? new AbortController() : null;
  const timer = abort ? setTimeout(() => abort.abort(), 30_000) : undefined;
  const signal = abort ? abort.signal : v.signal === 'outer' ? OUTER.signal : undefined;
  try {
    const res = await fetch(url, { method: 'POST', headers, body: v.bytes ? Buffer.from(text) : text, signal });
    if (v.read === 'json') return await res.json();
    if (v.read === 'text') return JSON.parse(await res.text());
    return await Array.fromAsync(res.body as ReadableStream<Uint8Array>);
  } finally {
    clearTimeout(timer);
  }
}

async function run(v: Variant, n: number) {
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, k) => {
      for (let i = k; i < n; i += CONCURRENCY) await call(v);
    }),
  );
}

const figures = new Map<string, number[]>();
for (let r = 0; r < rounds; r++) {
  for (const v of VARIANTS) {
    await run(v, 1000); // warm
    const c0 = process.cpuUsage();
    await run(v, calls);
    const c = process.cpuUsage(c0);
    figures.set(v.name, [...(figures.get(v.name) ?? []), (c.user + c.system) / calls]);
  }
}
for (const [name, us] of figures) {
  const sorted = [...us].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  console.log(
    `${name.padEnd(50)} min ${sorted[0]!.toFixed(1)}  median ${median.toFixed(1)} µs CPU per call  (${us.map((x) => x.toFixed(1)).join(' ')})`,
  );
}
killAll();
process.exit(0);
