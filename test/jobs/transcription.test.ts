import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { melody, wavFile } from '../../providers/simulator/wav';
import { startTestApp, type TestApp } from '../helpers/app';
import { BACKENDS } from '../helpers/backends';
import { post, usdBalance } from './helpers';

/** A fixture on 127.0.0.1: a media host (a WAV clip and a web page) and an OpenAI-compatible `/v1/audio/transcriptions`. */
function startFixture() {
  const state = { transcriptions: 0, failing: false, lastFile: null as { name: string; type: string; size: number } | null };
  const clip = wavFile(melody(2, 8000, 0), 8000);
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      if (url.pathname === '/clip.wav') return new Response(clip, { headers: { 'content-type': 'audio/wav' } });
      if (url.pathname === '/watch')
        return new Response('<html><body>a video page</body></html>', { headers: { 'content-type': 'text/html' } });
      if (url.pathname === '/v1/audio/transcriptions' && req.method === 'POST') {
        state.transcriptions++;
        if (state.failing) return Response.json({ error: { message: 'asr down' } }, { status: 500 });
        const form = await req.formData();
        const file = form.get('file') as File;
        state.lastFile = { name: file.name, type: file.type, size: file.size };
        return Response.json({ text: 'Hello from the canal.', language: 'en' });
      }
      return new Response('not found', { status: 404 });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, state, clip, close: () => server.stop(true) };
}

for (const backend of BACKENDS)
  describe(`POST /video/transcriptions (${backend.name})`, () => {
    let t: TestApp;
    let fx: ReturnType<typeof startFixture>;
    let dir: string;
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'svc-vt-'));
      fx = startFixture();
      t = await startTestApp({
        backend,
        config: {
          dataDir: dir,
          // The media host is the fixture on 127.0.0.1, which the SSRF guard refuses unless allowed.
          allowPrivateUrls: true,
          providers: [{ id: 'asr-up', kind: 'openai-compatible', baseURL: `${fx.url}/v1`, capabilities: ['transcribe'] }],
          models: [{ id: 'whisper-fixture', type: 'asr', routes: [{ provider: 'asr-up', weight: 1 }], pricing: { perUnit: '0.006' } }],
        },
      });
    });
    afterAll(async () => {
      await t.close();
      fx.close();
      rmSync(dir, { recursive: true, force: true });
    });

    test('json and text: the media fetched, sent as a file to the transcription model, charged one call', async () => {
      const before = await usdBalance(t);
      const res = await post(t, '/video/transcriptions', { url: `${fx.url}/clip.wav` });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ transcript: 'Hello from the canal.', lang: 'en' });
      expect(fx.state.lastFile).toEqual({ name: 'media.wav', type: 'audio/x-wav', size: fx.clip.length });
      const text = await post(t, '/video/transcriptions', { url: `${fx.url}/clip.wav`, response_format: 'text' });
      expect(text.headers.get('content-type')).toStartWith('text/plain');
      expect(await text.text()).toBe('Hello from the canal.');
      await t.deps.meter.flush();
      expect(before - (await usdBalance(t))).toBe(12_000);
    });

    test('bad input: 400 naming url or the field; 401 without a key', async () => {
      for (const [body, field] of [
        [{ url: 'ftp://example.com/a.mp4' }, 'url'],
        [{ url: `${fx.url}/watch` }, 'url'],
        [{ url: `${fx.url}/missing.mp4` }, 'url'],
        [{ url: `${fx.url}/clip.wav`, response_format: 'srt' }, 'response_format'],
        [{ url: `${fx.url}/clip.wav`, extra: true }, 'extra'],
      ] as const) {
        const res = await post(t, '/video/transcriptions', body);
        expect(res.status).toBe(400);
        expect(((await res.json()) as { error: string }).error).toContain(field);
      }
      expect((await post(t, '/video/transcriptions', { url: `${fx.url}/clip.wav` }, null)).status).toBe(401);
    });

    test('the transcription upstream fails: 502, nothing charged', async () => {
      fx.state.failing = true;
      try {
        const before = await usdBalance(t);
        const res = await post(t, '/video/transcriptions', { url: `${fx.url}/clip.wav` });
        expect(res.status).toBe(502);
        await t.deps.meter.flush();
        expect(await usdBalance(t)).toBe(before);
      } finally {
        fx.state.failing = false;
      }
    });
  });
