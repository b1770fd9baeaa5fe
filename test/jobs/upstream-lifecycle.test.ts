import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { reservations } from '../../src/db/schema';
import { startTestApp, type TestApp } from '../helpers/app';
import { BACKENDS } from '../helpers/backends';
import { fixtureMedia, PNG_1x1, startMediaJobsUpstream, type MediaJobsUpstream } from '../fixtures/media-jobs-upstream';
import { ledgerOf, post, retrieveUntilDone, upstreamJobsConfig, usdBalance } from './helpers';

const VIDEO = { model: 'fixture-video', duration: '5s', resolution: '720p' };
/** 5 s at 720p (0.10/s) and 5 s of audio (0.01/s). */
const VIDEO_PRICE = 550_000;

for (const backend of BACKENDS)
  describe(`media jobs against a fixture async upstream (${backend.name})`, () => {
    let t: TestApp;
    let up: MediaJobsUpstream;
    let dir: string;
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'svc-jobs-up-'));
      up = startMediaJobsUpstream({ pollsToDone: 2 });
      // The fixture is also the media host of the URL inputs, on 127.0.0.1: private addresses allowed here (bad-input.test.ts checks the refusal).
      t = await startTestApp({ backend, config: { ...upstreamJobsConfig(dir, up.url, { deadlineMs: 1500 }), allowPrivateUrls: true } });
    });
    afterAll(async () => {
      await t.close();
      up.close();
      rmSync(dir, { recursive: true, force: true });
    });

    async function queue(prompt: string, extra: Record<string, unknown> = {}) {
      const res = await post(t, '/video/queue', { ...VIDEO, prompt, ...extra });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { queue_id: string };
      return { queueId: body.queue_id, requestId: res.headers.get('cf-ray')! };
    }

    test('pending then done: the upstream bytes, charged the quote exactly once', async () => {
      const quote = (await (await post(t, '/video/quote', VIDEO, null)).json()) as { quote: number };
      expect(quote.quote).toBe(VIDEO_PRICE / 1e6);
      const before = await usdBalance(t);
      const { queueId, requestId } = await queue('A lighthouse in a storm');
      const upstreamJob = [...up.jobs.values()].at(-1)!;
      expect(upstreamJob.body.model).toBe('fixture-video');
      expect(upstreamJob.body.resolution).toBe('720p');
      const done = await retrieveUntilDone(t, 'video', 'fixture-video', queueId);
      expect(done.status).toBe(200);
      expect(done.headers.get('content-type')).toBe('video/mp4');
      expect([...new Uint8Array(await done.arrayBuffer())]).toEqual([...fixtureMedia(upstreamJob.id, 'video')]);
      expect(upstreamJob.polls).toBeGreaterThanOrEqual(2);
      expect(upstreamJob.downloads).toBe(1);
      expect(before - (await usdBalance(t))).toBe(VIDEO_PRICE);
      expect(await ledgerOf(t, requestId)).toEqual([{ kind: 'CHARGE', amount: -VIDEO_PRICE }]);
    });

    test('pending then failed: 500 with credits_refunded, the balance restored exactly, a REFUND line', async () => {
      const before = await usdBalance(t);
      const { queueId, requestId } = await queue('Render this [fixture:fail]');
      const res = await retrieveUntilDone(t, 'video', 'fixture-video', queueId);
      expect(res.status).toBe(500);
      const body = (await res.json()) as { error: string; credits_refunded: boolean };
      expect(body.credits_refunded).toBe(true);
      expect(body.error).toContain('refunded');
      expect(await usdBalance(t)).toBe(before);
      expect(await ledgerOf(t, requestId)).toEqual([
        { kind: 'CHARGE', amount: -VIDEO_PRICE },
        { kind: 'REFUND', amount: VIDEO_PRICE },
      ]);
    });

    test('refused for content policy: the reference 422 ProviderContentPolicyError, refunded', async () => {
      const before = await usdBalance(t);
      const { queueId } = await queue('Something the provider refuses [fixture:refuse]');
      const res = await retrieveUntilDone(t, 'video', 'fixture-video', queueId);
      expect(res.status).toBe(422);
      const body = (await res.json()) as { error: { type: string; credits_refunded: boolean; message: string } };
      expect(body.error.type).toBe('provider_content_policy');
      expect(body.error.credits_refunded).toBe(true);
      expect(await usdBalance(t)).toBe(before);
    });

    test('a job that hangs past its deadline is refunded', async () => {
      const before = await usdBalance(t);
      const { queueId } = await queue('Never ends [fixture:hang]');
      const res = await retrieveUntilDone(t, 'video', 'fixture-video', queueId);
      expect(res.status).toBe(500);
      expect(((await res.json()) as { error: string }).error).toContain('deadline');
      expect(await usdBalance(t)).toBe(before);
    });

    test('an upstream that answers 500 to polls is retried until the job finishes, charged once', async () => {
      const before = await usdBalance(t);
      const { queueId } = await queue('Flaky farm [fixture:flaky]');
      const res = await retrieveUntilDone(t, 'video', 'fixture-video', queueId);
      expect(res.status).toBe(200);
      expect(before - (await usdBalance(t))).toBe(VIDEO_PRICE);
    });

    test('refused at submit (422) or upstream down at submit (502): nothing charged, nothing held', async () => {
      const before = await usdBalance(t);
      const rejected = await post(t, '/video/queue', { ...VIDEO, prompt: 'Blocked [fixture:reject]' });
      expect(rejected.status).toBe(422);
      const down = await post(t, '/video/queue', { ...VIDEO, prompt: 'Down [fixture:down]' });
      expect(down.status).toBe(502);
      expect(await usdBalance(t)).toBe(before);
      // Every earlier job has ended: no reservation is kept, so these two kept none either.
      expect(await t.deps.storage.db.select().from(reservations)).toEqual([]);
    });

    test('audio: queue (QUEUED), PROCESSING, audio/mpeg bytes, complete; charged per second once', async () => {
      const quote = (await (await post(t, '/audio/quote', { model: 'fixture-music', duration_seconds: '40' }, null)).json()) as {
        quote: number;
      };
      expect(quote.quote).toBe(0.08);
      const before = await usdBalance(t);
      const res = await post(t, '/audio/queue', { model: 'fixture-music', prompt: 'A calm piano piece', duration_seconds: 40 });
      expect(res.status).toBe(200);
      const queued = (await res.json()) as { queue_id: string; status: string; model: string };
      expect(queued).toMatchObject({ model: 'fixture-music', status: 'QUEUED' });
      const first = await post(t, '/audio/retrieve', { model: 'fixture-music', queue_id: queued.queue_id });
      expect(((await first.json()) as { status: string }).status).toBe('PROCESSING');
      const done = await retrieveUntilDone(t, 'audio', 'fixture-music', queued.queue_id);
      expect(done.headers.get('content-type')).toBe('audio/mpeg');
      const job = [...up.jobs.values()].at(-1)!;
      expect(job.body.duration_seconds).toBe(40);
      expect([...new Uint8Array(await done.arrayBuffer())]).toEqual([...fixtureMedia(job.id, 'audio')]);
      expect(before - (await usdBalance(t))).toBe(80_000);
      expect(await (await post(t, '/audio/complete', { model: 'fixture-music', queue_id: queued.queue_id })).json()).toEqual({
        success: true,
      });
      expect((await post(t, '/audio/retrieve', { model: 'fixture-music', queue_id: queued.queue_id })).status).toBe(404);
    });

    test('URL inputs are fetched by svc (SSRF guard, content checked) and sent upstream as data URLs; consents are not forwarded', async () => {
      await queue('With a start frame', { image_url: `${up.url}/media/frame.png`, reference_image_urls: [`${up.url}/media/frame.png`] });
      const sent = [...up.jobs.values()].at(-1)!.body;
      expect(sent.image_url).toBe(`data:image/png;base64,${Buffer.from(PNG_1x1).toString('base64')}`);
      expect(sent.reference_image_urls).toEqual([sent.image_url]);
      expect(sent.consents).toBeUndefined();
      const notAnImage = await post(t, '/video/queue', { ...VIDEO, prompt: 'x', image_url: `${up.url}/media/page.html` });
      expect(notAnImage.status).toBe(400);
      expect(((await notAnImage.json()) as { error: string }).error).toContain('image_url');
    });

    test('delete_media_on_completion: the media once, then 404; complete after it is a 400 naming queue_id', async () => {
      const { queueId } = await queue('Delete after download');
      await retrieveUntilDone(t, 'video', 'fixture-video', queueId);
      const job = [...up.jobs.values()].at(-1)!;
      const once = await post(t, '/video/retrieve', { model: 'fixture-video', queue_id: queueId, delete_media_on_completion: true });
      expect(once.status).toBe(200);
      expect([...new Uint8Array(await once.arrayBuffer())]).toEqual([...fixtureMedia(job.id, 'video')]);
      expect((await post(t, '/video/retrieve', { model: 'fixture-video', queue_id: queueId })).status).toBe(404);
      const complete = await post(t, '/video/complete', { model: 'fixture-video', queue_id: queueId });
      expect(complete.status).toBe(400);
      expect(((await complete.json()) as { error: string }).error).toContain('queue_id');
    });
  });
