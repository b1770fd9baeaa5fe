import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { startTestApp, type TestApp } from '../helpers/app';
import { fixtureMedia, startMediaJobsUpstream, type MediaJobsUpstream } from '../fixtures/media-jobs-upstream';
import { upstreamJobsConfig } from './helpers';

/**
 * The openai SDK's generic methods (`client.post`) against the job routes over a real socket:
 * what an existing client of the reference API does, with its auth, JSON and error handling.
 */
describe('the openai SDK drives a video job', () => {
  let t: TestApp;
  let up: MediaJobsUpstream;
  let dir: string;
  let client: OpenAI;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-jobs-sdk-'));
    up = startMediaJobsUpstream({ pollsToDone: 1 });
    t = await startTestApp({ config: upstreamJobsConfig(dir, up.url) });
    t.app.listen({ hostname: '127.0.0.1', port: 0 });
    client = new OpenAI({ baseURL: `http://127.0.0.1:${t.app.server?.port}/api/v1`, apiKey: t.adminKey, maxRetries: 0 });
  });
  afterAll(async () => {
    await t.app.stop(true);
    await t.close();
    up.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('quote, queue, retrieve until the MP4 arrives, complete; errors surface as APIError with the field named', async () => {
    const ask = { model: 'fixture-video', duration: '5s', resolution: '720p' };
    expect(await client.post('/video/quote', { body: ask })).toEqual({ quote: 0.55 });
    const queued = (await client.post('/video/queue', { body: { ...ask, prompt: 'A bridge at night' } })) as { queue_id: string };
    let media: Response | null = null;
    for (const until = Date.now() + 60_000; !media && Date.now() < until;) {
      const res = (await client.post('/video/retrieve', {
        body: { model: 'fixture-video', queue_id: queued.queue_id },
        __binaryResponse: true,
      })) as Response;
      if (res.headers.get('content-type') === 'video/mp4') media = res;
      else await Bun.sleep(50);
    }
    const job = [...up.jobs.values()].at(-1)!;
    expect([...new Uint8Array(await media!.arrayBuffer())]).toEqual([...fixtureMedia(job.id, 'video')]);
    expect(await client.post('/video/complete', { body: { model: 'fixture-video', queue_id: queued.queue_id } })).toEqual({
      success: true,
    });
    const error = await client.post('/video/queue', { body: { ...ask, duration: '7s', prompt: 'x' } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
    expect((error as Error).message).toContain('duration');
  }, 90_000);
});
