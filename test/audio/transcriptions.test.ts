import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import OpenAI, { toFile } from 'openai';
import { startTestApp, type TestApp } from '../helpers/app';
import { EMBEDDED } from '../helpers/backends';
import { fixtureModel, fixtureProvider } from '../chat/helpers';
import { startAudioUpstream, type AudioUpstream } from '../fixtures/audio-upstream';
import { ledgerOf, settledUsd, toneWav, uploadForm } from './helpers';

/** fx-asr: 0.001 USD (1,000 micro-USD) per audio second. */
const MODELS = [fixtureModel('fx-asr', ['up'], { type: 'asr', pricing: { perUnit: '0.001' } })];

describe('POST /audio/transcriptions against an OpenAI-compatible upstream', () => {
  let t: TestApp;
  let up: AudioUpstream;
  let client: OpenAI;

  beforeAll(async () => {
    up = startAudioUpstream();
    t = await startTestApp({ backend: EMBEDDED, config: { providers: [fixtureProvider('up', up.url, 1000)], models: MODELS } });
    t.app.listen({ port: 0, hostname: '127.0.0.1' });
    client = new OpenAI({ baseURL: `http://127.0.0.1:${t.app.server?.port}/api/v1`, apiKey: t.adminKey, maxRetries: 0 });
  });
  afterAll(async () => {
    await t.app.stop(true);
    await t.close();
    await up.close();
  });
  beforeEach(() => up.set({}));

  const transcribe = (body: BodyInit, headers: Record<string, string> = {}) =>
    t.request('/audio/transcriptions', { method: 'POST', body, headers });
  const expectFile = async (res: Response, status = 400) => {
    expect(res.status).toBe(status);
    const body = await res.json();
    expect(body.error).toContain('file');
    return body;
  };

  test("the OpenAI SDK's audio.transcriptions.create: the upstream's text, charged per second read from the file", async () => {
    const raw = await client.audio.transcriptions
      .create({ file: await toFile(toneWav(2.5), 'speech.wav'), model: 'fx-asr' })
      .withResponse();
    expect(raw.data.text).toBe('hello fixture');
    expect((raw.data as unknown as { duration: number }).duration).toBe(2.5);
    expect(raw.response.headers.get('x-svc-model-id')).toBe('fx-asr');
    expect(raw.response.headers.get('x-ratelimit-limit-requests')).toBe('60');
    const sent = up.requests.at(-1);
    expect(sent?.path).toBe('/v1/audio/transcriptions');
    expect(sent?.fields).toMatchObject({ model: 'up-model', response_format: 'json' });
    expect(sent?.file).toEqual({ name: 'speech.wav', size: toneWav(2.5).byteLength });
    const rows = await ledgerOf(t, raw.response);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ sku: 'fx-asr-asr-audio-second', amountMicros: -3000, currency: 'USD' });
  });

  test('every accepted container is recognised from its bytes, whatever its name, and billed by its own duration', async () => {
    // 1.5 s of a tone made with ffmpeg (test/fixtures/audio/README.md); containers pad the duration a little.
    // AAC (ADTS or MP4) counts every frame of 1024 samples, the encoder's priming and padding too.
    const files = {
      'tone.flac': 1.5,
      'tone.m4a': 1.6,
      'tone.aac': 1.6,
      'tone.mp4': 1.6,
      'tone.ogg': 1.536,
      'tone-opus.ogg': 1.52,
      'tone.webm': 1.521,
    };
    for (const [name, seconds] of Object.entries(files)) {
      const bytes = new Uint8Array(await Bun.file(new URL(`../fixtures/audio/${name}`, import.meta.url)).arrayBuffer());
      const res = await transcribe(uploadForm(bytes, { model: 'fx-asr' }, 'renamed.bin'));
      expect({ name, status: res.status }).toEqual({ name, status: 200 });
      expect((await res.json()).duration).toBe(seconds);
      const rows = await ledgerOf(t, res);
      expect(rows.map((r) => r.amountMicros)).toEqual([-2000]);
    }
  });

  test('text, srt and vtt as text; verbose_json through the SDK; json with timestamps', async () => {
    const text = await transcribe(uploadForm(toneWav(1), { model: 'fx-asr', response_format: 'text' }));
    expect(text.headers.get('content-type')).toStartWith('text/plain');
    expect(await text.text()).toBe('hello fixture');
    const srt = await transcribe(uploadForm(toneWav(1), { model: 'fx-asr', response_format: 'srt' }));
    expect(await srt.text()).toBe('1\n00:00:00,000 --> 00:00:01,000\nhello fixture\n');
    expect(up.requests.at(-1)?.fields).toMatchObject({ response_format: 'verbose_json', 'timestamp_granularities[]': ['word', 'segment'] });
    const vtt = await transcribe(uploadForm(toneWav(1), { model: 'fx-asr', response_format: 'vtt' }));
    expect(vtt.headers.get('content-type')).toStartWith('text/vtt');
    expect(await vtt.text()).toBe('WEBVTT\n\n00:00:00.000 --> 00:00:01.000\nhello fixture\n');
    const verbose = await client.audio.transcriptions.create({
      file: await toFile(toneWav(1), 'a.wav'),
      model: 'fx-asr',
      response_format: 'verbose_json',
      timestamp_granularities: ['word'],
      language: 'en',
    });
    expect(verbose).toMatchObject({ task: 'transcribe', language: 'en', duration: 1, text: 'hello fixture' });
    expect(verbose.words?.map((w) => w.word)).toEqual(['hello', 'fixture']);
    expect(up.requests.at(-1)?.fields).toMatchObject({ language: 'en' });
    const stamped = await transcribe(uploadForm(toneWav(1), { model: 'fx-asr', timestamps: 'true' }));
    expect(await stamped.json()).toEqual({
      text: 'hello fixture',
      duration: 1,
      timestamps: {
        word: [
          { word: 'hello', start: 0, end: 0.5 },
          { word: 'fixture', start: 0.5, end: 1 },
        ],
        segment: [{ text: 'hello fixture', start: 0, end: 1 }],
      },
    });
  });

  test('bad uploads: missing, text renamed .mp3, truncated WAV (400 naming file), over 25 MB (413), JSON or text bodies', async () => {
    const before = await settledUsd(t);
    const n = up.requests.length;
    await expectFile(await transcribe(uploadForm(null, { model: 'fx-asr' })));
    const fake = new TextEncoder().encode('this is not audio at all, only text pretending to be one. '.repeat(40));
    await expectFile(await transcribe(uploadForm(new Uint8Array(fake), { model: 'fx-asr' }, 'song.mp3')));
    const aiff = new Uint8Array(await Bun.file(new URL('../fixtures/audio/tone.aiff', import.meta.url)).arrayBuffer());
    const refusedContainer = await expectFile(await transcribe(uploadForm(aiff, { model: 'fx-asr' }, 'tone.wav')));
    expect(refusedContainer.error).toContain('is not accepted');
    const cut = toneWav(2).slice(0, 20_000);
    const truncated = await expectFile(await transcribe(uploadForm(cut, { model: 'fx-asr' })));
    expect(truncated.error).toContain('truncated');
    await expectFile(await transcribe(uploadForm(new Uint8Array(0), { model: 'fx-asr' })));
    const huge = new Uint8Array(new ArrayBuffer(25 * 1024 * 1024 + 1));
    huge.set(toneWav(1));
    const tooLarge = await expectFile(await transcribe(uploadForm(huge, { model: 'fx-asr' })), 413);
    expect(tooLarge.code).toBe('PAYLOAD_TOO_LARGE');
    await expectFile(await t.request('/audio/transcriptions', { method: 'POST', json: { model: 'fx-asr', file: 'aGVsbG8=' } }));
    const plain = await transcribe('hello', { 'content-type': 'text/plain' });
    expect(plain.status).toBe(415);
    const badFormat = await transcribe(uploadForm(toneWav(1), { model: 'fx-asr', response_format: 'mp3' }));
    expect(badFormat.status).toBe(400);
    expect((await badFormat.json()).error).toContain('response_format');
    const badLanguage = await transcribe(uploadForm(toneWav(1), { model: 'fx-asr', language: 'english' }));
    expect((await badLanguage.json()).error).toContain('language');
    const unknown = await transcribe(uploadForm(toneWav(1), { model: 'fx-asr', colour: 'red' }));
    expect((await unknown.json()).error).toContain('colour');
    expect(up.requests.length).toBe(n);
    expect(await settledUsd(t)).toBe(before);
  });

  test('upstream 5xx (502), a hang (504) and an answer without text (502): nothing charged', async () => {
    const before = await settledUsd(t);
    up.set({ status: 500 });
    expect((await transcribe(uploadForm(toneWav(1), { model: 'fx-asr' }))).status).toBe(502);
    up.set({ transcript: { words: [] } });
    const noText = await transcribe(uploadForm(toneWav(1), { model: 'fx-asr' }));
    expect(noText.status).toBe(502);
    expect((await noText.json()).error).toContain('without text');
    up.set({ hang: true });
    const hung = await client.audio.transcriptions
      .create({ file: await toFile(toneWav(1), 'a.wav'), model: 'fx-asr' })
      .catch((e: { status: number }) => e);
    expect((hung as { status: number }).status).toBe(504);
    expect(await settledUsd(t)).toBe(before);
  });
});
