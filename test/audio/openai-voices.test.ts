import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import OpenAI from 'openai';
import { startTestApp, type TestApp } from '../helpers/app';
import { fixtureModel, fixtureProvider } from '../chat/helpers';
import { startAudioUpstream, type AudioUpstream } from '../fixtures/audio-upstream';

const tts = (id: string, audio: Record<string, unknown>) => fixtureModel(id, ['up'], { type: 'tts', pricing: { input: '1' }, audio });

describe("OpenAI's voice names on the default catalog", () => {
  let t: TestApp;
  let client: OpenAI;
  beforeAll(async () => {
    t = await startTestApp();
    t.app.listen({ port: 0, hostname: '127.0.0.1' });
    client = new OpenAI({ baseURL: `http://127.0.0.1:${t.app.server?.port}/api/v1`, apiKey: t.adminKey, maxRetries: 0 });
  });
  afterAll(async () => {
    await t.app.stop(true);
    await t.close();
  });

  test('audio.speech.create with alloy (and the others) speaks, by model id and by OpenAI alias', async () => {
    for (const voice of ['alloy', 'nova', 'cedar'] as const)
      for (const model of ['tts-kokoro', 'tts-1']) {
        const audio = await client.audio.speech.create({ model, voice, input: 'hello', response_format: 'wav' });
        expect((await audio.arrayBuffer()).byteLength).toBeGreaterThan(44);
      }
  });
});

describe("OpenAI's voice names on an operator's catalog", () => {
  let t: TestApp;
  let up: AudioUpstream;
  beforeAll(async () => {
    up = startAudioUpstream();
    t = await startTestApp({
      config: {
        providers: [fixtureProvider('up', up.url, 2000)],
        models: [
          tts('fx-mapped', { voices: ['v1', 'v2'], voiceMapping: { alloy: 'v2' } }),
          tts('fx-turns', { voices: ['v1', 'v2'] }),
          tts('fx-own-only', { voices: ['v1'], voiceMapping: {} }),
        ],
      },
    });
  });
  afterAll(async () => {
    await t.close();
    await up.close();
  });

  const speak = (model: string, voice: string) =>
    t.request('/audio/speech', { method: 'POST', json: { model, voice, input: 'hi', response_format: 'wav' } });
  const sentVoice = () => up.requests.at(-1)?.fields.voice;

  test("the model's voiceMapping decides; a name it leaves out is a 400 naming voice", async () => {
    expect((await speak('fx-mapped', 'alloy')).status).toBe(200);
    expect(sentVoice()).toBe('v2');
    expect((await speak('fx-mapped', 'v1')).status).toBe(200);
    expect(sentVoice()).toBe('v1');
    const refused = await speak('fx-mapped', 'echo');
    expect(refused.status).toBe(400);
    expect((await refused.json()).error).toContain('voice');
  });

  test("without a mapping OpenAI's names take the model's voices in turn; an empty mapping takes only its own", async () => {
    expect((await speak('fx-turns', 'alloy')).status).toBe(200);
    expect(sentVoice()).toBe('v1');
    expect((await speak('fx-turns', 'ash')).status).toBe(200);
    expect(sentVoice()).toBe('v2');
    expect((await speak('fx-turns', 'nobody')).status).toBe(400);
    expect((await speak('fx-own-only', 'alloy')).status).toBe(400);
  });
});
