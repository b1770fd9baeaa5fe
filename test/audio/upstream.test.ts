import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { parseBuffer } from 'music-metadata';
import OpenAI, { toFile } from 'openai';
import { createApiKey } from '../../src/auth/api-keys';
import { createAccount } from '../../src/auth/bootstrap';
import { startTestApp, type TestApp } from '../helpers/app';
import { BACKENDS } from '../helpers/backends';
import { fixtureModel, fixtureProvider } from '../chat/helpers';
import { startAudioUpstream, type AudioUpstream } from '../fixtures/audio-upstream';
import { ledgerOf, settledUsd, toneWav } from './helpers';
import { rejectionOf } from '../helpers/rejection';

const ALL_FORMATS = ['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm'];

/** fx-tts: 1 USD per 1M characters (1 micro-USD a character); fx-asr: 0.001 USD per audio second. */
const MODELS = [
  fixtureModel('fx-tts', ['up'], {
    type: 'tts',
    pricing: { input: '1' },
    audio: { voices: ['alloy', 'nova'], defaultVoice: 'alloy', formats: ALL_FORMATS },
  }),
  fixtureModel('fx-asr', ['up'], { type: 'asr', pricing: { perUnit: '0.001' } }),
];

for (const backend of BACKENDS) {
  describe(`audio against an OpenAI-compatible upstream on ${backend.name}`, () => {
    let t: TestApp;
    let up: AudioUpstream;
    let client: OpenAI;
    let base: string;

    beforeAll(async () => {
      up = startAudioUpstream();
      // A second replica, `small`, reads at most 2 KiB of speech.
      const small = { ...fixtureProvider('small', up.url, 1000), maxResponseBytes: { speech: 2048 } };
      const models = [...MODELS, { ...MODELS[0], id: 'fx-tts-small', routes: [{ provider: 'small', model: 'small-model' }] }];
      t = await startTestApp({ backend, config: { providers: [fixtureProvider('up', up.url, 1000), small], models } });
      t.app.listen({ port: 0, hostname: '127.0.0.1' });
      base = `http://127.0.0.1:${t.app.server?.port}/api/v1`;
      client = new OpenAI({ baseURL: base, apiKey: t.adminKey, maxRetries: 0 });
    });
    afterAll(async () => {
      await t.app.stop(true);
      await t.close();
      await up.close();
    });
    beforeEach(() => up.set({}));

    const speech = (json: unknown, key?: string | null) => t.request('/audio/speech', { method: 'POST', json, key });
    const expectField = async (res: Response, field: string, status = 400) => {
      expect(res.status).toBe(status);
      const body = await res.json();
      expect(body.error).toContain(field);
      if (status === 400) expect(JSON.stringify(body.details)).toContain(field);
    };

    test("the OpenAI SDK's audio.speech.create: the upstream's WAV bytes, its own model name, one ledger line per character", async () => {
      const input = 'hello there';
      const raw = await client.audio.speech.create({ model: 'fx-tts', voice: 'nova', input, response_format: 'wav' }).withResponse();
      const bytes = new Uint8Array(await raw.data.arrayBuffer());
      expect(bytes).toEqual(up.speechBytes(input));
      expect((await parseBuffer(bytes)).format.container).toBe('WAVE');
      const res = raw.response;
      expect(res.headers.get('content-type')).toBe('audio/wav');
      expect(res.headers.get('x-svc-model-id')).toBe('fx-tts');
      expect(res.headers.get('x-ratelimit-limit-requests')).toBe('60');
      expect(res.headers.get('x-svc-balance-usd')).toMatch(/^\d+\.\d{6}$/);
      expect(up.requests.at(-1)).toMatchObject({
        path: '/v1/audio/speech',
        fields: { model: 'up-model', input, voice: 'nova', response_format: 'wav', speed: 1 },
      });
      const rows = await ledgerOf(t, res);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ sku: 'fx-tts-tts-input-mchar', amountMicros: -11, currency: 'USD', promptTokens: 11 });
    });

    test('every reference field is accepted and passed on; the model default voice is used when none is given', async () => {
      const res = await speech({
        model: 'fx-tts',
        input: 'hi',
        response_format: 'flac',
        speed: 1.5,
        language: 'en',
        prompt: 'calmly',
        temperature: 0.7,
        top_p: 0.9,
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('audio/flac');
      await res.arrayBuffer();
      expect(up.requests.at(-1)?.fields).toEqual({
        model: 'up-model',
        input: 'hi',
        voice: 'alloy',
        response_format: 'flac',
        speed: 1.5,
        language: 'en',
        instructions: 'calmly',
        temperature: 0.7,
        top_p: 0.9,
      });
    });

    test('streaming: the first bytes reach the client before the upstream has finished; charged once it has all arrived', async () => {
      up.set({ holdAfterFirst: true, chunks: 3 });
      const before = await settledUsd(t);
      const res = await fetch(`${base}/audio/speech`, {
        method: 'POST',
        headers: { authorization: `Bearer ${t.adminKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'fx-tts', input: 'streamed words', response_format: 'wav', streaming: true }),
      });
      expect(res.status).toBe(200);
      expect(up.requests.at(-1)?.fields.stream).toBe(true);
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      const first = await reader.read();
      expect(first.done).toBe(false);
      expect(up.finished).toBe(false);
      up.release();
      const parts = [first.value as Uint8Array];
      for (let r = await reader.read(); !r.done; r = await reader.read()) parts.push(r.value);
      expect(new Uint8Array(Buffer.concat(parts))).toEqual(up.speechBytes('streamed words'));
      expect(up.finished).toBe(true);
      const rows = await ledgerOf(t, res);
      expect(rows.map((r) => r.amountMicros)).toEqual([-14]);
      expect(await settledUsd(t)).toBeCloseTo(before - 0.000014, 6);
    });

    test('a stream broken mid-audio errors the response and charges nothing; unstreamed, it is a 502', async () => {
      const before = await settledUsd(t);
      up.set({ breakAfterFirst: true, chunks: 4 });
      const streamed = await speech({ model: 'fx-tts', input: 'broken audio', response_format: 'wav', streaming: true });
      expect(streamed.status).toBe(200);
      expect(await rejectionOf(streamed.arrayBuffer())).toBeInstanceOf(Error);
      expect(await ledgerOf(t, streamed)).toHaveLength(0);
      const whole = await speech({ model: 'fx-tts', input: 'broken audio', response_format: 'wav' });
      expect(whole.status).toBe(502);
      expect(await ledgerOf(t, whole)).toHaveLength(0);
      expect(await settledUsd(t)).toBe(before);
    });

    test('a client that stops reading a streamed speech is charged for it, and the upstream call is cut', async () => {
      up.set({ holdAfterFirst: true, chunks: 3 });
      const aborted = up.aborted;
      const res = await speech({ model: 'fx-tts', input: 'left early', response_format: 'wav', streaming: true });
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      expect((await reader.read()).done).toBe(false);
      await reader.cancel();
      let rows = await ledgerOf(t, res);
      for (let i = 0; i < 50 && rows.length === 0; i++) {
        await Bun.sleep(20);
        rows = await ledgerOf(t, res);
      }
      expect(rows.map((r) => r.amountMicros)).toEqual([-10]);
      for (let i = 0; i < 50 && up.aborted === aborted; i++) await Bun.sleep(20);
      expect(up.aborted).toBe(aborted + 1);
      expect(up.finished).toBe(false);

      // The same over a socket: the client aborts its fetch after the first bytes.
      const gone = new AbortController();
      const overSocket = await fetch(`${base}/audio/speech`, {
        method: 'POST',
        headers: { authorization: `Bearer ${t.adminKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'fx-tts', input: 'left by socket', response_format: 'wav', streaming: true }),
        signal: gone.signal,
      });
      expect((await (overSocket.body as ReadableStream<Uint8Array>).getReader().read()).done).toBe(false);
      gone.abort();
      let socketRows = await ledgerOf(t, overSocket);
      for (let i = 0; i < 100 && socketRows.length === 0; i++) {
        await Bun.sleep(20);
        socketRows = await ledgerOf(t, overSocket);
      }
      expect(socketRows.map((r) => r.amountMicros)).toEqual([-14]);
    });

    test("speech past the provider's maxResponseBytes.speech is cut: 502 unstreamed, a broken stream streamed, nothing charged", async () => {
      const before = await settledUsd(t);
      const input = 'x'.repeat(200); // 10 s of 8 kHz WAV: 160 KB, far past 2 KiB
      const whole = await speech({ model: 'fx-tts-small', input, response_format: 'wav' });
      expect(whole.status).toBe(502);
      expect((await whole.json()).error).toContain('size limit');
      // A first chunk under the limit (1.6 KB, the rest held back) goes out; the stream breaks past 2 KiB.
      up.set({ chunks: 100, holdAfterFirst: true });
      const streamed = await speech({ model: 'fx-tts-small', input, response_format: 'wav', streaming: true });
      expect(streamed.status).toBe(200);
      up.release();
      expect(await rejectionOf(streamed.arrayBuffer())).toBeInstanceOf(Error);
      expect(await ledgerOf(t, streamed)).toHaveLength(0);
      expect(await settledUsd(t)).toBe(before);
    });

    test('upstream 5xx: 502; a hanging upstream: 504; streamed or not, nothing charged', async () => {
      const before = await settledUsd(t);
      up.set({ status: 500 });
      for (const streaming of [false, true]) {
        const res = await speech({ model: 'fx-tts', input: 'x', streaming });
        expect(res.status).toBe(502);
        expect((await res.json()).error).toContain('500');
      }
      up.set({ hang: true });
      const hung = await client.audio.speech.create({ model: 'fx-tts', voice: 'alloy', input: 'x' }).catch((e: { status: number }) => e);
      expect((hung as { status: number }).status).toBe(504);
      expect(await settledUsd(t)).toBe(before);
    });

    test('bad speech input: each a 400 naming the field', async () => {
      const n = up.requests.length;
      await expectField(await speech({ model: 'fx-tts', input: '' }), 'input');
      await expectField(await speech({ model: 'fx-tts', input: 'a'.repeat(4097) }), 'input');
      expect((await speech({ model: 'fx-tts', input: 'a'.repeat(4096) })).status).toBe(200);
      await expectField(await speech({ model: 'fx-tts', input: 'a', voice: 'af_nobody' }), 'voice');
      await expectField(await speech({ model: 'fx-tts', input: 'a', voice: 'vv_doesnotexist' }), 'voice');
      await expectField(await speech({ model: 'fx-tts', input: 'a', response_format: 'ogg' }), 'response_format');
      await expectField(await speech({ model: 'fx-tts', input: 'a', speed: 4.5 }), 'speed');
      await expectField(await speech({ model: 'fx-tts', input: 'a', speed: 0.1 }), 'speed');
      await expectField(await speech({ model: 'fx-tts', input: 'a', temperature: 3 }), 'temperature');
      await expectField(await speech({ model: 'fx-tts', input: 'a', colour: 'red' }), 'colour');
      await expectField(await speech({ model: 'fx-asr', input: 'a' }), 'model');
      await expectField(await speech({ model: 'nope', input: 'a' }), 'nope', 404);
      expect(up.requests.length).toBe(n + 1);
    });

    test('401 without a key; 402 for an empty account; 429 over the Audio limit; the partner tier gets 120 a minute', async () => {
      expect((await speech({ model: 'fx-tts', input: 'a' }, null)).status).toBe(401);
      expect((await speech({ model: 'fx-tts', input: 'a' }, 'svc_bad')).status).toBe(401);
      const db = t.deps.storage.db;
      const n = up.requests.length;
      const broke = await createAccount(db, { creditUsd: '0' });
      const brokeKey = (await createApiKey(db, { accountId: broke, type: 'INFERENCE' })).secret;
      expect((await speech({ model: 'fx-tts', input: 'a' }, brokeKey)).status).toBe(402);
      const tr = await t.request('/audio/transcriptions', {
        method: 'POST',
        key: brokeKey,
        body: (() => {
          const f = new FormData();
          f.append('file', new File([toneWav(1)], 'a.wav'));
          f.append('model', 'fx-asr');
          return f;
        })(),
      });
      expect(tr.status).toBe(402);
      expect(up.requests.length).toBe(n);
      const limited = await createAccount(db, { creditUsd: '10' });
      const limitedKey = (await createApiKey(db, { accountId: limited, type: 'INFERENCE' })).secret;
      const put = await t.request(`/admin/accounts/${limited}/rate_limits`, { method: 'PUT', json: { overrides: { audio: 1 } } });
      expect(put.status).toBe(200);
      expect((await speech({ model: 'fx-tts', input: 'a' }, limitedKey)).status).toBe(200);
      const refused = await speech({ model: 'fx-tts', input: 'a' }, limitedKey);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('x-ratelimit-limit-requests')).toBe('1');
      const partner = await createAccount(db, { creditUsd: '10', tier: 'partner' });
      const partnerKey = (await createApiKey(db, { accountId: partner, type: 'INFERENCE' })).secret;
      const ok = await speech({ model: 'fx-tts', input: 'a' }, partnerKey);
      expect(ok.status).toBe(200);
      expect(ok.headers.get('x-ratelimit-limit-requests')).toBe('120');
    });
  });
}
