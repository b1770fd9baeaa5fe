import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createApiKey } from '../../src/auth/api-keys';
import { createAccount } from '../../src/auth/bootstrap';
import { startTestApp, type TestApp } from '../helpers/app';
import { BACKENDS } from '../helpers/backends';
import { fixtureModel, fixtureProvider } from '../chat/helpers';
import { startAudioUpstream, type AudioUpstream } from '../fixtures/audio-upstream';
import { ledgerOf, toneMp3, toneWav, uploadForm } from './helpers';

const MODELS = [
  fixtureModel('fx-clone', ['up'], {
    type: 'tts',
    pricing: { input: '1' },
    audio: { voices: ['default'], formats: ['wav'], voiceCloning: { mode: 'persistent', minSampleSeconds: 2, retentionDays: 7 } },
  }),
  fixtureModel('fx-zero-shot', ['up'], {
    type: 'tts',
    pricing: { input: '1' },
    audio: { formats: ['wav'], voiceCloning: { mode: 'zero_shot', minSampleSeconds: 1, acceptedFormats: ['mp3'] } },
  }),
  fixtureModel('fx-tts', ['up'], { type: 'tts', pricing: { input: '1' }, audio: { voices: ['alloy'], formats: ['wav'] } }),
];

for (const backend of BACKENDS) {
  describe(`cloned voices on ${backend.name}`, () => {
    let t: TestApp;
    let up: AudioUpstream;
    let clock = Date.now();
    let ownerKey: string;
    let otherKey: string;

    beforeAll(async () => {
      up = startAudioUpstream();
      t = await startTestApp({ backend, config: { providers: [fixtureProvider('up', up.url, 1000)], models: MODELS }, now: () => clock });
      const db = t.deps.storage.db;
      ownerKey = (await createApiKey(db, { accountId: await createAccount(db, { creditUsd: '5' }), type: 'INFERENCE' })).secret;
      otherKey = (await createApiKey(db, { accountId: await createAccount(db, { creditUsd: '5' }), type: 'INFERENCE' })).secret;
    });
    afterAll(async () => {
      await t.close();
      await up.close();
    });

    const clone = (form: FormData, key: string | null = ownerKey) => t.request('/audio/voices', { method: 'POST', body: form, key });
    const speak = (json: unknown, key: string) => t.request('/audio/speech', { method: 'POST', json, key });

    test('a voice made from a sample is used by its owner, charged as any speech, and refused to another account like an unknown one', async () => {
      const made = await clone(uploadForm(toneWav(3), { model: 'fx-clone' }));
      expect(made.status).toBe(200);
      const voice = await made.json();
      expect(voice.model).toBe('fx-clone');
      expect(voice.id).toMatch(/^vv_[A-Za-z0-9_-]+$/);

      const own = await speak({ model: 'fx-clone', input: 'my voice', voice: voice.id, response_format: 'wav' }, ownerKey);
      expect(own.status).toBe(200);
      expect(new Uint8Array(await own.arrayBuffer())).toEqual(up.speechBytes('my voice'));
      expect(up.requests.at(-1)?.fields).toMatchObject({ voice: voice.id, model: 'up-model' });
      expect((await ledgerOf(t, own)).map((r) => [r.sku, r.amountMicros])).toEqual([['fx-clone-tts-input-mchar', -8]]);

      const n = up.requests.length;
      const stranger = await speak({ model: 'fx-clone', input: 'not mine', voice: voice.id, response_format: 'wav' }, otherKey);
      const unknown = await speak({ model: 'fx-clone', input: 'not mine', voice: 'vv_nobodyhasthis', response_format: 'wav' }, otherKey);
      expect(stranger.status).toBe(400);
      expect(unknown.status).toBe(400);
      const refused = await stranger.json();
      expect(refused.error).toBe(`Invalid request parameters: voice: unknown voice "${voice.id}"`);
      expect(refused.details.voice).toBeDefined();
      expect((await unknown.json()).error).toBe('Invalid request parameters: voice: unknown voice "vv_nobodyhasthis"');
      const otherModel = await speak({ model: 'fx-tts', input: 'x', voice: voice.id, response_format: 'wav' }, ownerKey);
      expect(otherModel.status).toBe(400);
      expect((await otherModel.json()).error).toContain('fx-clone');
      expect(up.requests.length).toBe(n);
    });

    test('a voice expires after its retention window (7 days by default): from its creation (zero_shot), from its last use (persistent)', async () => {
      const DAY = 86_400_000;
      const wavOnly = await clone(uploadForm(toneWav(2), { model: 'fx-zero-shot' }));
      expect(wavOnly.status).toBe(400);
      expect((await wavOnly.json()).error).toContain('accepted: mp3');
      const zeroShot = (await (await clone(uploadForm(toneMp3(2), { model: 'fx-zero-shot' }, 'sample.mp3'))).json()).id as string;
      const persistent = (await (await clone(uploadForm(toneWav(3), { model: 'fx-clone' }))).json()).id as string;
      const use = (voice: string, model = 'fx-clone') => speak({ model, input: 'x', voice, response_format: 'wav' }, ownerKey);
      clock += 6 * DAY;
      expect((await use(persistent)).status).toBe(200);
      expect((await use(zeroShot, 'fx-zero-shot')).status).toBe(200);
      clock += 6 * DAY;
      expect((await use(persistent)).status).toBe(200);
      expect((await use(zeroShot, 'fx-zero-shot')).status).toBe(400);
      clock += 8 * DAY;
      const expired = await use(persistent);
      expect(expired.status).toBe(400);
      expect((await expired.json()).error).toBe(`Invalid request parameters: voice: unknown voice "${persistent}"`);
    });

    test('bad samples and models: 400 naming the field; no key: 401', async () => {
      const notAudio = await clone(
        uploadForm(new Uint8Array(new TextEncoder().encode('plain text '.repeat(100))), { model: 'fx-clone' }, 'voice.wav'),
      );
      expect(notAudio.status).toBe(400);
      expect((await notAudio.json()).error).toStartWith('Invalid request parameters: file:');
      const short = await clone(uploadForm(toneWav(1), { model: 'fx-clone' }));
      expect(short.status).toBe(400);
      expect((await short.json()).error).toContain('at least 2 seconds');
      const missing = await clone(uploadForm(null, { model: 'fx-clone' }));
      expect((await missing.json()).error).toStartWith('Invalid request parameters: file:');
      const noCloning = await clone(uploadForm(toneWav(3), { model: 'fx-tts' }));
      expect(noCloning.status).toBe(400);
      expect((await noCloning.json()).error).toStartWith('Invalid request parameters: model:');
      expect((await clone(uploadForm(toneWav(3), { model: 'fx-clone' }), null)).status).toBe(401);
    });
  });
}
