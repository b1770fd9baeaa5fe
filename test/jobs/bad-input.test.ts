import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApiKey } from '../../src/auth/api-keys';
import { createAccount } from '../../src/auth/bootstrap';
import { startTestApp, type TestApp } from '../helpers/app';
import { BACKENDS } from '../helpers/backends';
import { startMediaJobsUpstream, type MediaJobsUpstream } from '../fixtures/media-jobs-upstream';
import { post, upstreamJobsConfig, usdBalance } from './helpers';

const VIDEO = { model: 'fixture-video', duration: '5s', resolution: '720p', prompt: 'A harbour' };

/** The body of a 400 DetailedError, checked to name `field`. */
async function namesField(res: Response, field: string) {
  expect(res.status).toBe(400);
  const body = (await res.json()) as { error: string; details: Record<string, unknown> };
  expect(body.error).toContain(field);
  expect(body.details[field.split('.')[0]!]).toBeDefined();
}

for (const backend of BACKENDS)
  describe(`media-job bad input, auth and limits (${backend.name})`, () => {
    let t: TestApp;
    let up: MediaJobsUpstream;
    let dir: string;
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'svc-jobs-bad-'));
      up = startMediaJobsUpstream();
      t = await startTestApp({ backend, config: upstreamJobsConfig(dir, up.url) });
    });
    afterAll(async () => {
      await t.close();
      up.close();
      rmSync(dir, { recursive: true, force: true });
    });

    test('unknown model: 404 on queue and quote', async () => {
      expect((await post(t, '/video/queue', { ...VIDEO, model: 'no-such-video' })).status).toBe(404);
      expect((await post(t, '/video/quote', { model: 'no-such-video', duration: '5s' }, null)).status).toBe(404);
      expect((await post(t, '/audio/quote', { model: 'no-such-music' }, null)).status).toBe(404);
    });

    test('options the model lacks, prompts over its limit, too many references: 400 naming each field', async () => {
      await namesField(await post(t, '/video/queue', { ...VIDEO, duration: '7s' }), 'duration');
      await namesField(await post(t, '/video/queue', { ...VIDEO, duration: 'forever' }), 'duration');
      await namesField(await post(t, '/video/queue', { ...VIDEO, resolution: '480p' }), 'resolution');
      await namesField(
        await post(t, '/video/quote', { model: 'fixture-video', duration: '5s', aspect_ratio: '1:1' }, null),
        'aspect_ratio',
      );
      await namesField(await post(t, '/video/queue', { ...VIDEO, upscale_factor: 4 }), 'upscale_factor');
      await namesField(await post(t, '/video/queue', { ...VIDEO, prompt: 'x'.repeat(101) }), 'prompt');
      await namesField(await post(t, '/video/queue', { ...VIDEO, prompt: '' }), 'prompt');
      const ten = Array.from({ length: 10 }, () => 'https://example.com/a.png');
      await namesField(await post(t, '/video/queue', { ...VIDEO, reference_image_urls: ten }), 'reference_image_urls');
      await namesField(await post(t, '/video/queue', { ...VIDEO, video_url: 'https://example.com/a.mp4' }), 'video_url');
      await namesField(await post(t, '/audio/queue', { model: 'fixture-music', prompt: 'x', duration_seconds: 500 }), 'duration_seconds');
      await namesField(await post(t, '/audio/queue', { model: 'fixture-music', prompt: 'x', lyrics_prompt: 'la la' }), 'lyrics_prompt');
      await namesField(await post(t, '/audio/queue', { model: 'fixture-music', prompt: 'x', surprise: 1 }), 'surprise');
      await namesField(await post(t, '/audio/quote', { model: 'fixture-music', duration_seconds: 'ten' }, null), 'duration_seconds');
    });

    test('URL inputs go through the SSRF guard: a private address is refused (400 naming the field), nothing charged', async () => {
      const before = await usdBalance(t);
      const res = await post(t, '/video/queue', { ...VIDEO, image_url: 'http://127.0.0.1:1/face.png' });
      await namesField(res, 'image_url');
      const meta = await post(t, '/video/queue', { ...VIDEO, reference_image_urls: ['http://169.254.169.254/latest/meta-data'] });
      await namesField(meta, 'reference_image_urls.0');
      const notImage = await post(t, '/video/queue', {
        ...VIDEO,
        image_url: `data:image/png;base64,${Buffer.from('plain text').toString('base64')}`,
      });
      await namesField(notImage, 'image_url');
      expect(await usdBalance(t)).toBe(before);
    });

    test('a queue_id that does not exist or is not yours: retrieve 404 "Media could not be found", complete 400', async () => {
      const unknown = await post(t, '/video/retrieve', { model: 'fixture-video', queue_id: crypto.randomUUID() });
      expect(unknown.status).toBe(404);
      expect(((await unknown.json()) as { error: string }).error).toContain('Media could not be found');
      const queued = (await (await post(t, '/video/queue', VIDEO)).json()) as { queue_id: string };
      const other = await createAccount(t.deps.storage.db, { creditUsd: '5' });
      const otherKey = (await createApiKey(t.deps.storage.db, { accountId: other, type: 'INFERENCE' })).secret;
      expect((await post(t, '/video/retrieve', { model: 'fixture-video', queue_id: queued.queue_id }, otherKey)).status).toBe(404);
      await namesField(await post(t, '/video/complete', { model: 'fixture-video', queue_id: queued.queue_id }, otherKey), 'queue_id');
      await namesField(
        await post(t, '/video/retrieve', { model: 'fixture-music', queue_id: queued.queue_id }).then(async (r) => r),
        'model',
      );
    });

    test('auth: 401 without a key or with a bad one on queue, retrieve and complete; quote needs none', async () => {
      for (const path of ['/video/queue', '/video/retrieve', '/video/complete', '/audio/queue', '/audio/retrieve', '/audio/complete']) {
        expect((await post(t, path, { queue_id: 'x', ...VIDEO }, null)).status).toBe(401);
        expect((await post(t, path, { queue_id: 'x', ...VIDEO }, 'svc_not-a-key')).status).toBe(401);
      }
      expect((await post(t, '/video/quote', { model: 'fixture-video', duration: '5s' }, null)).status).toBe(200);
    });

    test('402 for an empty account (nothing submitted); 429 over the Video (queue) and Video (retrieve) limits', async () => {
      const db = t.deps.storage.db;
      const broke = await createAccount(db, { creditUsd: '0' });
      const brokeKey = (await createApiKey(db, { accountId: broke, type: 'INFERENCE' })).secret;
      const submits = up.submits;
      expect((await post(t, '/video/queue', VIDEO, brokeKey)).status).toBe(402);
      expect((await post(t, '/audio/queue', { model: 'fixture-music', prompt: 'x' }, brokeKey)).status).toBe(402);
      expect(up.submits).toBe(submits);

      const limited = await createAccount(db, { creditUsd: '10' });
      const key = (await createApiKey(db, { accountId: limited, type: 'INFERENCE' })).secret;
      const put = await t.request(`/admin/accounts/${limited}/rate_limits`, {
        method: 'PUT',
        json: { overrides: { videoQueue: 1, videoRetrieve: 2 } },
      });
      expect(put.status).toBe(200);
      const first = await post(t, '/video/queue', VIDEO, key);
      expect(first.status).toBe(200);
      const { queue_id } = (await first.json()) as { queue_id: string };
      const refused = await post(t, '/video/queue', VIDEO, key);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('x-ratelimit-limit-requests')).toBe('1');
      expect((await post(t, '/video/retrieve', { model: 'fixture-video', queue_id }, key)).status).toBe(200);
      expect((await post(t, '/video/retrieve', { model: 'fixture-video', queue_id }, key)).status).toBe(200);
      const slow = await post(t, '/video/retrieve', { model: 'fixture-video', queue_id }, key);
      expect(slow.status).toBe(429);
      expect(slow.headers.get('x-ratelimit-limit-requests')).toBe('2');
    });
  });

describe('hostile bodies on the look-up routes', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ config: { jobs: { pollIntervalMs: 1000 } } });
  });
  afterAll(() => t.close());

  test('NUL, non-object bodies and huge numbers: 400 naming the field, never 500', async () => {
    for (const path of ['/video/retrieve', '/video/complete', '/audio/retrieve', '/audio/complete']) {
      const nul = await post(t, path, { model: 'wan-2-7-text-to-video', queue_id: 'a\u0000b' });
      expect(nul.status).toBe(400);
      expect(((await nul.json()) as { error: string }).error).toContain('queue_id');
      const list = await t.request(path, { method: 'POST', body: '[1,2]', headers: { 'content-type': 'application/json' } });
      expect(list.status).toBe(400);
    }
    const huge = await post(t, '/audio/quote', { model: 'elevenlabs-music', duration_seconds: 1e300 });
    expect(huge.status).toBe(400);
    expect(((await huge.json()) as { error: string }).error).toContain('duration_seconds');
    const deep = await post(t, '/video/queue', {
      model: 'wan-2-7-text-to-video',
      duration: '5s',
      prompt: 'x',
      elements: [{ video_url: { a: { b: 1 } } }],
    });
    expect(deep.status).toBe(400);
  });

  test('GET /models publishes what the queue routes accept: the video options and the audio options of each model', async () => {
    const video = (await (await t.request('/models?type=video')).json()) as {
      data: { id: string; model_spec: { constraints: Record<string, unknown>; simulator?: boolean } }[];
    };
    const wan = video.data.find((m) => m.id === 'wan-2-7-text-to-video')!;
    expect(wan.model_spec.simulator).toBe(true);
    expect(wan.model_spec.constraints).toMatchObject({
      durations: ['2s', '5s', '10s'],
      resolutions: ['480p', '720p', '1080p'],
      aspect_ratios: ['16:9', '9:16', '1:1'],
      model_type: 'text-to-video',
      audio: true,
      prompt_character_limit: 2500,
    });
    expect(video.data.find((m) => m.id === 'seedance-2-0-reference-to-video')!.model_spec.constraints).toMatchObject({
      consent_flow: 'seedance',
      model_type: 'video',
    });
    const music = (await (await t.request('/models?type=music')).json()) as { data: { id: string; model_spec: Record<string, unknown> }[] };
    const spec = music.data.find((m) => m.id === 'elevenlabs-music')!.model_spec;
    expect(spec).toMatchObject({
      supports_lyrics: true,
      max_duration: 300,
      default_duration: 30,
      prompt_character_limit: 2000,
      default_format: 'wav',
    });
    expect(spec.constraints).toBeUndefined();
  });
});
