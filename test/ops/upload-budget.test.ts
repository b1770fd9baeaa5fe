import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixtureModel, fixtureProvider } from '../chat/helpers';
import { startAudioUpstream, type AudioUpstream } from '../fixtures/audio-upstream';
import { longWav } from '../audio/corpus';
import { startTestApp, type TestApp } from '../helpers/app';
import { EMBEDDED } from '../helpers/backends';

// The real server process (`bun src/index.ts`) with a 64 MiB upload budget, under 40
// concurrent 24 MiB transcription uploads: what it answers, and what its memory does.
const MB = 1024 * 1024;
const BUDGET = 64 * MB;
const root = join(import.meta.dir, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'svc-upload-budget-'));
const dataDir = join(dir, 'data');
const env = { ...process.env, SVC_DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '', SVC_CONFIG: join(dir, 'svc.yaml') };

let upstream: AudioUpstream;
let server: ReturnType<typeof Bun.spawn>;
let stderr = '';
let api = '';
let key = '';

/** The server's resident memory, from /proc. */
const rss = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))![1]) * 1024;

async function until<T>(what: string, probe: () => T | undefined | null | false, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; stderr: ${stderr}`);
    await Bun.sleep(100);
  }
}

/** One multipart body, made once and sent by every request (a FormData would be encoded per request, in this process). */
function multipart(file: Uint8Array, fields: Record<string, string>): { body: Uint8Array<ArrayBuffer>; type: string } {
  const boundary = 'svc-upload-budget-boundary';
  const head = Object.entries(fields)
    .map(([k, v]) => `--${boundary}\r\ncontent-disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`)
    .join('');
  const parts = [
    new TextEncoder().encode(
      `${head}--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="clip.wav"\r\ncontent-type: audio/wav\r\n\r\n`,
    ),
    file,
    new TextEncoder().encode(`\r\n--${boundary}--\r\n`),
  ];
  return { body: new Uint8Array(Buffer.concat(parts)), type: `multipart/form-data; boundary=${boundary}` };
}

// 786 s of 16 kHz mono: 25,152,044 bytes, just under the 25 MB upload limit.
const upload = multipart(longWav(786), { model: 'fx-asr' });
const transcribe = () =>
  fetch(`${api}/audio/transcriptions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': upload.type },
    body: upload.body,
  }).then(async (res) => ({ status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.text() }));

describe('the upload budget on a server process', () => {
  beforeAll(async () => {
    upstream = startAudioUpstream();
    writeFileSync(
      env.SVC_CONFIG,
      JSON.stringify({
        port: 0,
        host: '127.0.0.1',
        uploadBudgetBytes: BUDGET,
        shutdownDrainSeconds: 0,
        providers: [fixtureProvider('up', upstream.url, 30_000)],
        models: [fixtureModel('fx-asr', ['up'], { type: 'asr', pricing: { perUnit: '0.000001' } })],
      }),
    );
    server = Bun.spawn([process.execPath, 'src/index.ts'], { cwd: root, env, stdout: 'ignore', stderr: 'pipe' });
    void (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of server.stderr as ReadableStream<Uint8Array>) stderr += decoder.decode(chunk, { stream: true });
    })();
    key = await until('the bootstrap key', () => /svc_[A-Za-z0-9_-]{43}/.exec(stderr)?.[0], 100_000);
    api = await until('the lock file', () => {
      const lock = join(dataDir, 'svc.lock.json');
      return existsSync(lock) ? (JSON.parse(readFileSync(lock, 'utf8')) as { url: string | null }).url : null;
    });
  }, 120_000);

  afterAll(async () => {
    server.kill('SIGKILL');
    await upstream.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('40 concurrent 24 MiB uploads over a 64 MiB budget: 503s with Retry-After past it, no 500, memory back near idle after', async () => {
    // Warm: the first uploads load the audio parser; idle is measured after them, once collected.
    for (let i = 0; i < 2; i++) expect((await transcribe()).status).toBe(200);
    await Bun.sleep(5_000);
    const idle = rss();

    // A busy engine: every admitted upload is held for a second and a half.
    upstream.set({ delayMs: 1_500 });
    let peak = idle;
    const sampler = setInterval(() => (peak = Math.max(peak, rss())), 50);
    const answers = await Promise.all(Array.from({ length: 40 }, transcribe));
    clearInterval(sampler);
    upstream.set({});

    const count = (status: number) => answers.filter((a) => a.status === status).length;
    const refused = answers.filter((a) => a.status === 503);
    const summary = { ok: count(200), refused: refused.length, other: answers.filter((a) => a.status !== 200 && a.status !== 503) };
    const others = summary.other.map((a) => a.status).join(', ');
    process.stderr.write(
      `upload budget: idle ${Math.round(idle / MB)} MB, peak ${Math.round(peak / MB)} MB; ${summary.ok} x 200, ${summary.refused} x 503, others: ${others || 'none'}\n`,
    );
    expect(summary.other).toEqual([]);
    // At most two 24 MiB bodies fit in 64 MiB at once: most of a simultaneous 40 are refused.
    expect(summary.ok).toBeGreaterThanOrEqual(2);
    expect(summary.refused).toBeGreaterThanOrEqual(20);
    for (const a of refused) {
      expect(a.retryAfter).toBe('2');
      expect(JSON.parse(a.body).error).toContain('uploadBudgetBytes');
    }

    // The budget is all given back: uploads one after another are served again.
    expect((await transcribe()).status).toBe(200);
    const after = await until('RSS within 25 % of idle', () => rss() <= idle * 1.25 && rss(), 30_000).catch(() => rss());
    process.stderr.write(`upload budget: after the burst ${Math.round(after / MB)} MB (idle ${Math.round(idle / MB)} MB)\n`);
    expect(after).toBeLessThanOrEqual(idle * 1.25);
  }, 120_000);
});

describe('the upload budget in process (1 MiB)', () => {
  let t: TestApp;
  let up: AudioUpstream;
  beforeAll(async () => {
    up = startAudioUpstream();
    t = await startTestApp({
      backend: EMBEDDED,
      config: {
        uploadBudgetBytes: MB,
        maxBodyBytes: 2 * MB,
        providers: [fixtureProvider('up', up.url, 30_000)],
        models: [fixtureModel('fx-asr', ['up'], { type: 'asr', pricing: { perUnit: '0.000001' } })],
      },
    });
  });
  afterAll(async () => {
    await t.close();
    await up.close();
  });
  // With its Content-Length, as every client over a socket sends it (or Transfer-Encoding).
  const send = (bytes: Uint8Array<ArrayBuffer>) => {
    const { body, type } = multipart(bytes, { model: 'fx-asr' });
    const headers = { 'content-type': type, 'content-length': String(body.byteLength) };
    // The bytes are given back after the answer has gone (onAfterResponse): a moment later.
    return t.request('/audio/transcriptions', { method: 'POST', body, headers }).then(async (res) => {
      await Bun.sleep(20);
      return res;
    });
  };

  test('a second 700 KB upload beside one in flight is a 503; small bodies pass; every answer gives the bytes back', async () => {
    const big = longWav(22); // 704,044 bytes
    up.set({ delayMs: 1_000 });
    const first = send(big);
    await Bun.sleep(100);
    const second = await send(big);
    expect(second.status).toBe(503);
    expect(second.headers.get('retry-after')).toBe('2');
    expect((await second.json()).error).toContain('uploadBudgetBytes: 1048576');
    // Under 64 KiB a body is not counted: a 1 s clip passes beside the held upload.
    expect((await send(longWav(1))).status).toBe(200);
    expect((await first).status).toBe(200);
    up.set({});
    // Refusals and failures give their bytes back like successes: a 400 (not audio), a 413 (over maxBodyBytes), then 200s.
    const notAudio = new Uint8Array(700_000).fill(0x61);
    expect((await send(notAudio)).status).toBe(400);
    expect((await send(longWav(70))).status).toBe(413);
    for (let i = 0; i < 3; i++) expect((await send(big)).status).toBe(200);
  }, 30_000);
});
