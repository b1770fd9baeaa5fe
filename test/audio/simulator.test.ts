import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseBuffer, parseFile } from 'music-metadata';
import OpenAI, { toFile } from 'openai';
import { createApiKey } from '../../src/auth/api-keys';
import { createAccount } from '../../src/auth/bootstrap';
import { startTestApp, type TestApp } from '../helpers/app';
import { uploadForm } from './helpers';

/** Seconds of simulated speech for `text` at `speed` (providers/simulator/tones.ts: 0.07 s a character). */
const expectedSeconds = (text: string, speed = 1) => Math.max(0.25, (text.length * 0.07) / speed);

describe('audio on a fresh start: the built-in simulator', () => {
  let t: TestApp;
  let client: OpenAI;
  let dir: string;

  beforeAll(async () => {
    t = await startTestApp();
    t.app.listen({ port: 0, hostname: '127.0.0.1' });
    client = new OpenAI({ baseURL: `http://127.0.0.1:${t.app.server?.port}/api/v1`, apiKey: t.adminKey, maxRetries: 0 });
    dir = await mkdtemp(join(tmpdir(), 'svc-audio-'));
  });
  afterAll(async () => {
    await t.app.stop(true);
    await t.close();
    await rm(dir, { recursive: true, force: true });
  });

  const speech = (json: unknown) => t.request('/audio/speech', { method: 'POST', json });

  test('the OpenAI SDK writes a playable MP3 (tts-1 maps to tts-kokoro) whose length follows the text; transcription reads it back', async () => {
    const input = 'The quick brown fox jumps over the lazy dog.';
    const raw = await client.audio.speech.create({ model: 'tts-1', voice: 'af_sky', input }).withResponse();
    expect(raw.response.headers.get('content-type')).toBe('audio/mpeg');
    expect(raw.response.headers.get('x-svc-model-id')).toBe('tts-kokoro');
    expect(raw.response.headers.get('x-svc-simulated')).toBe('true');
    const file = join(dir, 'speech.mp3');
    await writeFile(file, Buffer.from(await raw.data.arrayBuffer()));
    const meta = await parseFile(file, { duration: true });
    expect(meta.format.container).toBe('MPEG');
    expect(meta.format.codec).toContain('Layer 3');
    expect(meta.format.sampleRate).toBe(24_000);
    expect(meta.format.duration as number).toBeCloseTo(expectedSeconds(input), 0);

    const text = await client.audio.transcriptions.create({ file: await toFile(Bun.file(file), 'speech.mp3'), model: 'whisper-1' });
    expect(text.text).toStartWith('[simulated]');
    const again = await client.audio.transcriptions.create({ file: await toFile(Bun.file(file), 'speech.mp3'), model: 'whisper-1' });
    expect(again.text).toBe(text.text);
  });

  test('WAV and PCM are real: their duration follows the text and the speed; streamed bytes equal the whole file', async () => {
    const input = 'Twenty characters!!!';
    const wav = new Uint8Array(await (await speech({ input, response_format: 'wav' })).arrayBuffer());
    const meta = await parseBuffer(wav, { size: wav.byteLength });
    expect(meta.format).toMatchObject({ container: 'WAVE', sampleRate: 24_000, bitsPerSample: 16, numberOfChannels: 1 });
    expect(meta.format.duration as number).toBeCloseTo(expectedSeconds(input), 3);
    const fast = new Uint8Array(await (await speech({ input, response_format: 'wav', speed: 2 })).arrayBuffer());
    expect((await parseBuffer(fast)).format.duration as number).toBeCloseTo(expectedSeconds(input, 2), 3);
    const pcm = await speech({ input, response_format: 'pcm' });
    expect(pcm.headers.get('content-type')).toBe('audio/pcm');
    expect((await pcm.arrayBuffer()).byteLength).toBe(wav.byteLength - 44);
    const streamed = await speech({ input, response_format: 'wav', streaming: true });
    expect(new Uint8Array(await streamed.arrayBuffer())).toEqual(wav);
    // A silent simulator is no simulator: the tone is audible.
    const samples = new Int16Array(wav.buffer, 44, (wav.byteLength - 44) / 2);
    expect(Math.max(...samples.subarray(0, 4000))).toBeGreaterThan(5000);
  });

  test('formats the simulator cannot encode are refused (400 naming response_format), as the catalog says', async () => {
    for (const format of ['opus', 'aac', 'flac']) {
      const res = await speech({ input: 'hi', response_format: format });
      expect(res.status).toBe(400);
      const body = await res.json();
      expect(body.error).toStartWith('Invalid request parameters: response_format:');
      expect(body.error).toContain('mp3, wav, pcm');
    }
  });

  test('/models?type=tts and ?type=asr: voices, formats, cloning and prices in the reference shape, labelled simulated', async () => {
    const tts = await (await t.request('/models?type=tts')).json();
    const kokoro = tts.data.find((m: { id: string }) => m.id === 'tts-kokoro');
    expect(kokoro.type).toBe('tts');
    expect(kokoro.model_spec).toMatchObject({
      pricing: { input: { usd: 3.5, diem: 3.5 } },
      voices: expect.arrayContaining(['af_sky']),
      supported_formats: ['mp3', 'wav', 'pcm'],
      simulator: true,
    });
    expect(kokoro.model_spec.name).toContain('simulated');
    const chatterbox = tts.data.find((m: { id: string }) => m.id === 'tts-chatterbox-hd');
    expect(chatterbox.model_spec.voice_cloning).toEqual({
      mode: 'zero_shot',
      accepted_formats: ['mp3', 'wav', 'flac', 'm4a'],
      min_sample_seconds: 1,
      retention_days: 7,
    });
    const asr = await (await t.request('/models?type=asr')).json();
    expect(asr.data.map((m: { id: string }) => m.id)).toEqual(['nvidia/parakeet-tdt-0.6b-v3', 'openai/whisper-large-v3']);
    expect(asr.data[0].model_spec.pricing).toEqual({ per_audio_second: { usd: 0.0001, diem: 0.0001 } });
  });

  test('a vv_ voice from /audio/voices is used by its owner, refused to another account; /billing/usage has one line per call', async () => {
    const db = t.deps.storage.db;
    const owner = await createAccount(db, { creditUsd: '1' });
    const ownerKey = (await createApiKey(db, { accountId: owner, type: 'INFERENCE' })).secret;
    const otherKey = (await createApiKey(db, { accountId: await createAccount(db, { creditUsd: '1' }), type: 'INFERENCE' })).secret;
    const sample = new Uint8Array(await (await speech({ input: 'a sample of my own voice', response_format: 'wav' })).arrayBuffer());
    const made = await t.request('/audio/voices', { method: 'POST', body: uploadForm(sample), key: ownerKey });
    expect(made.status).toBe(200);
    const voice = await made.json();
    expect(voice.model).toBe('tts-chatterbox-hd');
    const asOwner = { model: 'tts-chatterbox-hd', input: 'hello in my voice', voice: voice.id, response_format: 'wav' };
    const own = await t.request('/audio/speech', { method: 'POST', json: asOwner, key: ownerKey });
    expect(own.status).toBe(200);
    const ownWav = new Uint8Array(await own.arrayBuffer());
    const stock = new Uint8Array(await (await speech({ ...asOwner, voice: 'default' })).arrayBuffer());
    expect(ownWav.byteLength).toBe(stock.byteLength);
    expect(ownWav).not.toEqual(stock);
    const stranger = await t.request('/audio/speech', { method: 'POST', json: asOwner, key: otherKey });
    expect(stranger.status).toBe(400);
    expect((await stranger.json()).error).toBe(`Invalid request parameters: voice: unknown voice "${voice.id}"`);
    const heard = await t.request('/audio/transcriptions', { method: 'POST', body: uploadForm(ownWav), key: ownerKey });
    expect(heard.status).toBe(200);

    await t.deps.meter.flush();
    // Billing is read with an ADMIN key of the same account.
    const adminKey = (await createApiKey(db, { accountId: owner, type: 'ADMIN' })).secret;
    const usage = await (await t.request('/billing/usage?limit=500', { key: adminKey })).json();
    const skus = usage.data.map((e: { sku: string }) => e.sku).sort();
    expect(skus).toEqual(['nvidia/parakeet-tdt-0.6b-v3-asr-audio-second', 'tts-chatterbox-hd-tts-input-mchar']);
    const speechLine = usage.data.find((e: { sku: string }) => e.sku.endsWith('mchar'));
    expect(speechLine).toMatchObject({ unit: 0.000017, pricePerUnitUsd: 20, amount: 0.00034 });
  });
});
