import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApp, type TestApp } from '../helpers/app';
import { referenceValidator, type ReferenceValidator } from '../conformance/reference';
import { startMediaJobsUpstream, type MediaJobsUpstream } from '../fixtures/media-jobs-upstream';
import { post, retrieveUntilDone, upstreamJobsConfig } from './helpers';

/** The job routes' JSON bodies, each checked against the reference OpenAPI's schema for its status. */
describe('media-job answers against the reference OpenAPI', () => {
  let t: TestApp;
  let up: MediaJobsUpstream;
  let ref: ReferenceValidator;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-jobs-ref-'));
    up = startMediaJobsUpstream({ pollsToDone: 1 });
    [t, ref] = await Promise.all([startTestApp({ config: upstreamJobsConfig(dir, up.url) }), referenceValidator()]);
  });
  afterAll(async () => {
    await t.close();
    up.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function conforms(path: string, body: unknown, status: number, key?: string | null) {
    const res = await post(t, path, body, key);
    expect(res.status).toBe(status);
    const json = await res.json();
    expect(ref.check('POST', path, status, json)).toEqual([]);
    return json;
  }

  test('quote, queue, retrieve (running, refused), complete and the errors', async () => {
    const ask = { model: 'fixture-video', duration: '5s', resolution: '720p' };
    await conforms('/video/quote', ask, 200, null);
    await conforms('/audio/quote', { model: 'fixture-music', duration_seconds: 30 }, 200, null);
    const queued = (await conforms('/video/queue', { ...ask, prompt: 'A quay' }, 200)) as { queue_id: string };
    const running = await post(t, '/video/retrieve', { model: 'fixture-video', queue_id: queued.queue_id });
    if (running.headers.get('content-type')?.startsWith('application/json'))
      expect(ref.check('POST', '/video/retrieve', 200, await running.json())).toEqual([]);
    await retrieveUntilDone(t, 'video', 'fixture-video', queued.queue_id);
    await conforms('/video/complete', { model: 'fixture-video', queue_id: queued.queue_id }, 200);
    const audio = (await conforms('/audio/queue', { model: 'fixture-music', prompt: 'Waves' }, 200)) as { queue_id: string };
    await conforms('/audio/retrieve', { model: 'fixture-music', queue_id: audio.queue_id }, 200);
    await conforms('/video/queue', { ...ask, duration: '7s', prompt: 'x' }, 400);
    await conforms('/video/retrieve', { model: 'fixture-video', queue_id: crypto.randomUUID() }, 404);
    const refused = (await conforms('/video/queue', { ...ask, prompt: 'No [fixture:refuse]' }, 200)) as { queue_id: string };
    const res = await retrieveUntilDone(t, 'video', 'fixture-video', refused.queue_id);
    expect(res.status).toBe(422);
    expect(ref.check('POST', '/video/retrieve', 422, await res.json())).toEqual([]);
  }, 60_000);
});
