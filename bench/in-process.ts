/**
 * `bun bench/in-process.ts`: svc's CPU per chat request (or per stream chunk) through
 * `app.handle`, with a fake upstream `fetch` that answers from precomputed bytes. No sockets,
 * no load driver: the figure moves only with svc's own code, so it is the before/after
 * measure for a hot-path fix (the full `bun run bench` is the system-level one).
 *
 * Flags: --requests N (default 10000), --concurrency N (16), --rate R (R requests a second
 * instead of as fast as possible: fixed per-flush costs spread as under the system bench), --stream, --no-usage (with
 * --stream: the upstream reports no usage, so svc counts the tokens), --chunked (with --stream: the fake upstream
 * sends one SSE event per read, as a real upstream does, instead of the whole stream in one read, so per-chunk
 * costs show), --strip (stream with
 * strip_thinking_response), --responses (a streamed POST /responses over the same upstream stream: --no-usage and --chunked apply), --embeddings (POST /embeddings, one 1,024-float vector), --content-length (the fake upstream declares its JSON bodies' length, as real servers do), --base64 (with --embeddings: encoding_format base64, which the fake upstream honours), --external (Postgres + Redis from DATABASE_URL / REDIS_URL),
 * --cache-hit (the same chat or /responses request every time with `cache=use`: after the first, every
 * request is a response-cache hit), --cache-miss (`cache=use` with a different prompt each time: every
 * request a miss and a store), --vary (a new prompt per request, no cache: what a miss is compared with), --no-meter (meter and limiter replaced by no-ops: the pipeline alone), --profile (samples
 * the measured window with JavaScriptCore's profiler and prints the hottest functions; the
 * CPU figure then includes the profiler's own cost), --alloc (the objects allocated per request,
 * by type, over a window with no collection in it: bench/lib/alloc-window.ts), --tracing (OpenTelemetry traces on, every
 * request sampled, exported over OTLP/HTTP to a collector in a child process that discards them; the spans of the
 * window are built and exported before the clock stops), --tracing-unsampled (tracing on with a sampling ratio of 0:
 * ids and traceparent only). `bun bench/tools/tracing-cost.ts` runs it off and on, interleaved, and prints the ratio.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../src/app';
import { bootstrapAdminKey } from '../src/auth/bootstrap';
import { closeDeps, createDeps } from '../src/boot';
import { freeMeter, type UsageMeter } from '../src/billing/meter';
import { parseConfig } from '../src/config';
import { openPglite, openPostgres } from '../src/db/open';
import { createMemoryStore } from '../src/kv/memory';
import { createRedisStore } from '../src/kv/redis';
import { profileWindow } from './lib/window-profile';
import { allocationWindow } from './lib/alloc-window';
import { embeddingsAnswer, jsonCompletion, sseStream } from './servers/upstream-bytes';
import { freshDatabase } from './servers/svc';
import { BENCH_EMBED_MODEL, BENCH_MODEL, benchConfig } from './servers/svc-config';

const argv = Bun.argv.slice(2);
const flag = (name: string) => argv.includes(name);
const num = (name: string, dflt: number) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : dflt);
const requests = num('--requests', 10_000);
const concurrency = num('--concurrency', 16);
const rate = num('--rate', 0);
const responses = flag('--responses');
const stream = flag('--stream') || flag('--strip') || responses;
const external = flag('--external');
const embeddings = flag('--embeddings');
const cacheHit = flag('--cache-hit');
const cacheMiss = flag('--cache-miss');
// --vary: a new prompt per request without the cache (the baseline a miss is compared with).
const vary = flag('--vary') || cacheMiss;
// The response cache asked by model suffix, so chat and /responses ask it the same way.
const benchModel = cacheHit || cacheMiss ? `${BENCH_MODEL}:cache=use` : BENCH_MODEL;

const JSON_BYTES = jsonCompletion();
// --no-usage: the stream reports no usage (svc counts the tokens itself).
const SSE_BYTES = sseStream(50, !flag('--no-usage'));
// --chunked: the same bytes cut after each event's blank line, one read each.
const SSE_EVENTS = splitEvents(SSE_BYTES);
const chunked = flag('--chunked');
const EMBEDDINGS_BYTES = embeddingsAnswer();
const EMBEDDINGS_BASE64_BYTES = embeddingsAnswer('base64');
// A Response built here declares no length; real servers send Content-Length with a JSON body.
const declareLength = flag('--content-length');
const jsonAnswer = (body: string) =>
  new Response(body, {
    headers: declareLength
      ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }
      : { 'content-type': 'application/json' },
  });
const fakeFetch = (async (url: string, init?: RequestInit) => {
  if (String(url).endsWith('/embeddings')) {
    const asksBase64 = typeof init?.body === 'string' && init.body.includes('"encoding_format":"base64"');
    return jsonAnswer(asksBase64 ? EMBEDDINGS_BASE64_BYTES : EMBEDDINGS_BYTES);
  }
  const wantsStream = typeof init?.body === 'string' && init.body.includes('"stream":true');
  if (!wantsStream) return jsonAnswer(JSON_BYTES);
  return new Response(chunked ? eventByEvent() : SSE_BYTES, { headers: { 'content-type': 'text/event-stream' } });
}) as unknown as typeof fetch;

function splitEvents(bytes: Uint8Array): Uint8Array[] {
  const events: Uint8Array[] = [];
  for (let at = 0; at < bytes.length;) {
    const end = Buffer.prototype.indexOf.call(bytes, '\n\n', at) + 2;
    events.push(bytes.slice(at, end));
    at = end;
  }
  return events;
}

/** The SSE stream one event per pull (each read a macrotask apart is not modelled: reads are back to back). */
function eventByEvent(): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream<Uint8Array>(
    {
      pull(c) {
        if (i < SSE_EVENTS.length) c.enqueue(SSE_EVENTS[i++]!);
        else c.close();
      },
    },
    { highWaterMark: 0 },
  );
}

const NO_METER: UsageMeter = {
  ...freeMeter,
  credit: async () => {
    throw new Error('no meter');
  },
};

/**
 * Waits until the process is idle (under 5 % of a core over half a second, 30 s at most):
 * PGlite's WASM keeps compiling on background threads long after start-up and its first
 * queries, and that CPU would be charged to the measured requests.
 */
async function settleCpu() {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const c0 = process.cpuUsage();
    await Bun.sleep(500);
    const c = process.cpuUsage(c0);
    if (c.user + c.system < 25_000) return;
  }
}

const tracing = flag('--tracing') || flag('--tracing-unsampled');

/** A collector in a child process (its CPU is not svc's) that answers every OTLP export with 200 and keeps nothing. */
async function startSinkCollector(): Promise<{ url: string; stop(): void }> {
  const child = Bun.spawn(
    [
      process.execPath,
      '-e',
      "const s = Bun.serve({ port: 0, hostname: '127.0.0.1', async fetch(r) { await r.arrayBuffer(); return new Response('{}'); } }); console.log(s.port);",
    ],
    { stdout: 'pipe' },
  );
  const reader = child.stdout.getReader();
  const { value } = await reader.read();
  const port = Number(new TextDecoder().decode(value).trim());
  return { url: `http://127.0.0.1:${port}/v1/traces`, stop: () => child.kill() };
}

async function main() {
  const collector = tracing ? await startSinkCollector() : null;
  const config = parseConfig({
    ...benchConfig('http://upstream.invalid'),
    logLevel: 'warn',
    bootstrapCreditUsd: '1000000000',
    ...(process.env.NO_ABUSE ? { abuseGuard: { enabled: false } } : {}),
    ...(collector && {
      observability: {
        tracing: { enabled: true, endpoint: collector.url, ...(flag('--tracing-unsampled') && { sampler: 'traceidratio', samplerArg: 0 }) },
      },
    }),
  });
  if (external && (!process.env.DATABASE_URL || !process.env.REDIS_URL)) throw new Error('--external needs DATABASE_URL and REDIS_URL');
  const fresh = external ? await freshDatabase(process.env.DATABASE_URL!) : null;
  const storage = fresh ? await openPostgres(fresh.url) : await openPglite({ dataDir: mkdtempSync(join(tmpdir(), 'svc-inproc-')) });
  const kv = external ? await createRedisStore(process.env.REDIS_URL!, { prefix: `svc-inproc-${process.pid}:` }) : createMemoryStore({});
  const deps = await createDeps(config, { storage, kv, fetch: fakeFetch, meter: flag('--no-meter') ? NO_METER : undefined });
  const key = (await bootstrapAdminKey(storage.db, config.bootstrapCreditUsd))!;
  const app = createApp(deps);
  const body = responses
    ? JSON.stringify({ model: benchModel, input: 'Say hello.', max_output_tokens: 64, stream: true })
    : embeddings
      ? JSON.stringify({
          model: BENCH_EMBED_MODEL,
          input: 'The quick brown fox jumps over the lazy dog.',
          ...(flag('--base64') ? { encoding_format: 'base64' } : {}),
        })
      : JSON.stringify({
          model: benchModel,
          messages: [{ role: 'user', content: 'Say hello.' }],
          max_tokens: 64,
          ...(stream ? { stream: true } : {}),
          ...(flag('--strip') ? { svc_parameters: { strip_thinking_response: true } } : {}),
        });
  const url = `http://localhost${config.basePath}${embeddings ? '/embeddings' : responses ? '/responses' : '/chat/completions'}`;
  let prompts = 0;
  async function one() {
    // --cache-miss: a prompt of its own per request (same length class), so each one misses and stores.
    const text = vary ? body.replace('Say hello.', `Say hello ${prompts++}.`) : body;
    const res = await app.handle(
      new Request(url, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: text }),
    );
    if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
    await res.arrayBuffer();
  }
  async function run(n: number) {
    if (rate > 0) return paced(n);
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next++ < n) await one();
      }),
    );
  }
  /** `n` requests at `rate` per second (in bursts every 10 ms), as the system bench loads svc. */
  async function paced(n: number) {
    const perTick = Math.max(1, Math.round(rate / 100));
    const inFlight: Promise<void>[] = [];
    for (let sent = 0; sent < n; sent += perTick) {
      for (let i = 0; i < perTick && sent + i < n; i++) inFlight.push(one());
      await Bun.sleep(10);
    }
    await Promise.all(inFlight);
  }
  await run(Math.min(2000, requests));
  await deps.meter.flush();
  await settleCpu();
  if (flag('--idle')) {
    await Bun.sleep(5000);
    const idle0 = process.cpuUsage();
    await Bun.sleep(5000);
    const idle = process.cpuUsage(idle0);
    process.stdout.write(`idle: ${((idle.user + idle.system) / 5000).toFixed(1)} us CPU per ms over 5 s\n`);
  }
  if (flag('--alloc')) {
    const a = await allocationWindow(run, num('--alloc-requests', 400));
    process.stdout.write(
      `allocated per request (${a.requests} requests, no collection in the window): ${a.objectsTotal} objects, ${a.heapBytes} bytes of JS heap, ${a.extraBytes} bytes of extra memory\n` +
        `objects per request: ${a.objects
          .slice(0, 25)
          .map(([t, c]) => `${t} ${c}`)
          .join(', ')}\n`,
    );
  }
  Bun.gc(true);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  if (flag('--profile')) await profileWindow(() => run(requests));
  else await run(requests);
  await deps.meter.flush();
  // The window's spans built and exported: their cost is the requests'.
  await deps.observability?.tracing?.flush();
  const cpu = process.cpuUsage(cpu0);
  const wall = performance.now() - t0;
  const us = (cpu.user + cpu.system) / requests;
  const what = embeddings
    ? flag('--base64')
      ? 'embeddings (base64)'
      : 'embeddings'
    : responses
      ? `/responses stream (50 chunks${chunked ? ', one read each' : ', one read'}${flag('--no-usage') ? ', no usage' : ''})`
      : flag('--strip')
        ? 'stream+strip_thinking'
        : stream
          ? `stream (50 chunks${chunked ? ', one read each' : ', one read'}${flag('--no-usage') ? ', no usage' : ''})`
          : 'JSON';
  const backend = external ? 'postgres+redis' : 'pglite+memory';
  const cached =
    (cacheHit ? ', cache hits' : cacheMiss ? ', cache misses' : vary ? ', a new prompt each' : '') +
    (flag('--tracing-unsampled') ? ', tracing on (unsampled)' : tracing ? ', tracing on' : '');
  process.stdout.write(
    `${what}${cached} on ${backend}${flag('--no-meter') ? ', meter off' : ''}: ${us.toFixed(1)} us CPU per request (user ${(cpu.user / requests).toFixed(0)}, system ${(cpu.system / requests).toFixed(0)})` +
      (stream ? ` (${(us / 50).toFixed(2)} us per chunk)` : '') +
      `, ${((requests / wall) * 1000).toFixed(0)} req/s wall, ${requests} requests ${rate > 0 ? `at ${rate}/s` : `at ${concurrency} concurrent`}\n`,
  );
  await closeDeps(deps);
  collector?.stop();
  await fresh?.drop();
  process.exit(0);
}

await main();
