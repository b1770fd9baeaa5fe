/**
 * `bun bench/audio.ts`: what the audio family costs, in process (no sockets, no load driver),
 * so the figures move only with svc's own code.
 *
 * 1. Speech: svc's CPU per `/audio/speech` request and its time to first byte, through
 *    `app.handle` with the real meter (PGlite + memory KV), against a bare relay that fetches
 *    the same upstream bytes and returns them in a new Response. The fake upstream answers a
 *    5-second 24 kHz WAV (240 KB) in 16 KB chunks, one chunk per macrotask.
 * 2. Transcription: what reading an upload's format and duration (src/audio/upload.ts,
 *    music-metadata) costs per MB, for WAV (a header) and MP3 (every frame header is read).
 *
 * Flags: --requests N (default 2000), --concurrency N (16).
 */
import { Mp3Encoder } from '@breezystack/lamejs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readAudioUpload } from '../src/audio/upload';
import { createApp } from '../src/app';
import { bootstrapAdminKey } from '../src/auth/bootstrap';
import { closeDeps, createDeps } from '../src/boot';
import { parseConfig } from '../src/config';
import { openPglite } from '../src/db/open';
import { createMemoryStore } from '../src/kv/memory';
import { tone, wav } from './lib/wav';

const argv = Bun.argv.slice(2);
const num = (name: string, dflt: number) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : dflt);
const requests = num('--requests', 2000);
const concurrency = num('--concurrency', 16);

/** An MP3 (lamejs, 128 kbit/s) of `samples`. */
function mp3(samples: Int16Array, rate: number): Uint8Array<ArrayBuffer> {
  const enc = new Mp3Encoder(1, rate, 128);
  const parts: Uint8Array[] = [];
  for (let i = 0; i < samples.length; i += 1152 * 64) {
    const p = enc.encodeBuffer(samples.subarray(i, i + 1152 * 64));
    parts.push(new Uint8Array(p.buffer, p.byteOffset, p.byteLength).slice());
  }
  const tail = enc.flush();
  parts.push(new Uint8Array(tail.buffer, tail.byteOffset, tail.byteLength).slice());
  return new Uint8Array(Buffer.concat(parts));
}

const SPEECH = wav(tone(5, 24_000), 24_000);
const CHUNK = 16 * 1024;

/** The upstream's speech, in chunks, one a macrotask (as a socket delivers them). */
function speechStream(): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    async pull(c) {
      if (at >= SPEECH.byteLength) return c.close();
      if (at > 0) await new Promise((r) => setTimeout(r, 0));
      c.enqueue(SPEECH.subarray(at, (at += CHUNK)));
    },
  });
}
const fakeFetch = (async () => new Response(speechStream(), { headers: { 'content-type': 'audio/wav' } })) as unknown as typeof fetch;

/** The floor: fetch the same upstream and relay its body in a new Response. */
async function bareRelay(): Promise<Response> {
  const res = await fakeFetch('http://upstream.invalid/v1/audio/speech', { method: 'POST', body: '{}' });
  return new Response(res.body, { headers: { 'content-type': 'audio/wav' } });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.99)] as number;

/** `n` calls of `one` at `concurrency`: CPU µs a request, and the times to the first byte. */
async function measure(n: number, one: () => Promise<Response>) {
  const ttfb: number[] = [];
  let next = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < n) {
        const started = performance.now();
        const res = await one();
        if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
        const reader = (res.body as ReadableStream<Uint8Array>).getReader();
        await reader.read();
        ttfb.push(performance.now() - started);
        while (!(await reader.read()).done);
      }
    }),
  );
  const cpu = process.cpuUsage(cpu0);
  return {
    cpuUsPerRequest: Math.round((cpu.user + cpu.system) / n),
    ttfbP50Ms: Math.round(median(ttfb) * 1000) / 1000,
    ttfbP99Ms: Math.round(p99(ttfb) * 1000) / 1000,
    wallMs: Math.round(performance.now() - t0),
  };
}

async function speechPhase() {
  const config = parseConfig({
    logLevel: 'warn',
    bootstrapCreditUsd: '1000000000',
    abuseGuard: { enabled: false },
    providers: [{ id: 'up', kind: 'openai-compatible', baseURL: 'http://upstream.invalid/v1', timeoutMs: 10_000 }],
    models: [{ id: 'bench-tts', type: 'tts', routes: [{ provider: 'up' }], pricing: { input: '1' }, audio: { formats: ['wav'] } }],
    rateLimits: { standard: { audio: 100_000_000 } },
  });
  const storage = await openPglite({ dataDir: mkdtempSync(join(tmpdir(), 'svc-bench-audio-')) });
  const deps = await createDeps(config, { storage, kv: createMemoryStore({}), fetch: fakeFetch });
  const key = (await bootstrapAdminKey(storage.db, config.bootstrapCreditUsd))!;
  const app = createApp(deps);
  const svc = (streaming: boolean) => () =>
    app.handle(
      new Request(`http://localhost${config.basePath}/audio/speech`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'bench-tts',
          input: 'The quick brown fox jumps over the lazy dog.',
          response_format: 'wav',
          streaming,
        }),
      }),
    );
  // Warm-up: JIT, PGlite's first statements, the ledger writer.
  for (const one of [svc(true), svc(false), bareRelay]) await measure(Math.min(500, requests), one);
  await deps.meter.flush();
  const results = {
    bare: await measure(requests, bareRelay),
    svcStreamed: await measure(requests, svc(true)),
    svcWhole: await measure(requests, svc(false)),
  };
  await deps.meter.flush();
  await closeDeps(deps);
  console.log(`speech: ${requests} requests at concurrency ${concurrency}, a ${SPEECH.byteLength}-byte WAV in ${CHUNK}-byte chunks`);
  for (const [name, r] of Object.entries(results))
    console.log(
      `  ${name.padEnd(12)} cpu ${String(r.cpuUsPerRequest).padStart(6)} µs/request  ttfb p50 ${r.ttfbP50Ms} ms  p99 ${r.ttfbP99Ms} ms  wall ${r.wallMs} ms`,
    );
  console.log(
    `  svc over bare: streamed +${results.svcStreamed.cpuUsPerRequest - results.bare.cpuUsPerRequest} µs, ` +
      `whole +${results.svcWhole.cpuUsPerRequest - results.bare.cpuUsPerRequest} µs CPU a request`,
  );
}

async function durationPhase() {
  console.log('transcription duration read (readAudioUpload: format from the bytes, duration, truncation), median of 5');
  const cases: [string, Uint8Array<ArrayBuffer>][] = [
    ['wav 1 MB', wav(tone(32, 16_000), 16_000)],
    ['wav 24 MB', wav(tone(786, 16_000), 16_000)],
    ['mp3 1 MB', mp3(tone(64, 16_000), 16_000)],
    ['mp3 8 MB', mp3(tone(512, 16_000), 16_000)],
  ];
  for (const [name, bytes] of cases) {
    const blob = new Blob([bytes]);
    await readAudioUpload(blob);
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      await readAudioUpload(blob);
      times.push(performance.now() - t0);
    }
    const mb = bytes.byteLength / 1e6;
    const ms = median(times);
    console.log(`  ${name.padEnd(10)} ${mb.toFixed(1).padStart(5)} MB  ${ms.toFixed(2).padStart(8)} ms  ${(ms / mb).toFixed(2)} ms/MB`);
  }
}

await durationPhase();
await speechPhase();
