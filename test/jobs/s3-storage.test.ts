import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// s3rver: an S3-compatible server from npm (signed requests, ranged GETs, deletes), run in-process on 127.0.0.1.
import S3rver from 's3rver';
import { s3MediaStorage } from '../../src/jobs/media-storage';
import { startTestApp, type TestApp } from '../helpers/app';
import { fastJobsConfig, post, retrieveUntilDone } from './helpers';

const BUCKET = 'svc-media';

describe('media in an S3-compatible bucket (s3rver)', () => {
  let server: S3rver;
  let endpoint: string;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-s3-'));
    server = new S3rver({
      address: '127.0.0.1',
      port: 0,
      silent: true,
      directory: join(dir, 's3'),
      configureBuckets: [{ name: BUCKET, configs: [] }],
    });
    const { port } = await server.run();
    endpoint = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const s3 = () => ({ bucket: BUCKET, endpoint, region: 'us-east-1', accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER', prefix: 'media/' });

  test('put, size, ranged reads, delete (then nothing)', async () => {
    const storage = s3MediaStorage(s3());
    const bytes = new Uint8Array(10_000).map((_, i) => (i * 13) & 255);
    await storage.put('job-1.mp4', bytes, 'video/mp4');
    const media = await storage.get('job-1.mp4');
    expect(media?.size).toBe(bytes.length);
    const part = new Uint8Array(await new Response(media!.stream(100, 199)).arrayBuffer());
    expect([...part]).toEqual([...bytes.slice(100, 200)]);
    const whole = new Uint8Array(await new Response(media!.stream(0, bytes.length - 1)).arrayBuffer());
    expect(whole.length).toBe(bytes.length);
    await storage.delete('job-1.mp4');
    expect(await storage.get('job-1.mp4')).toBeNull();
    expect(await storage.get('never-there.mp4')).toBeNull();
  });

  describe('a video job with its media in the bucket', () => {
    let t: TestApp;
    beforeAll(async () => {
      const config = fastJobsConfig(join(dir, 'data'));
      t = await startTestApp({ config: { ...config, jobs: { ...config.jobs, s3: s3() } } });
    });
    afterAll(() => t.close());

    test('retrieve streams from the bucket (with a range), complete deletes the object', async () => {
      const queued = (await (
        await post(t, '/video/queue', { model: 'wan-2-7-text-to-video', duration: '2s', prompt: 'Canal' })
      ).json()) as { queue_id: string };
      const done = await retrieveUntilDone(t, 'video', 'wan-2-7-text-to-video', queued.queue_id);
      expect(done.headers.get('content-type')).toBe('video/mp4');
      const bytes = new Uint8Array(await done.arrayBuffer());
      expect(new TextDecoder().decode(bytes.slice(4, 8))).toBe('ftyp');
      const range = await t.request('/video/retrieve', {
        method: 'POST',
        json: { model: 'wan-2-7-text-to-video', queue_id: queued.queue_id },
        headers: { range: 'bytes=0-15' },
      });
      expect(range.status).toBe(206);
      expect([...new Uint8Array(await range.arrayBuffer())]).toEqual([...bytes.slice(0, 16)]);
      const storage = s3MediaStorage(s3());
      expect((await storage.get(`${queued.queue_id}.mp4`))?.size).toBe(bytes.length);
      expect(await (await post(t, '/video/complete', { model: 'wan-2-7-text-to-video', queue_id: queued.queue_id })).json()).toEqual({
        success: true,
      });
      expect(await storage.get(`${queued.queue_id}.mp4`)).toBeNull();
    }, 120_000);
  });
});
