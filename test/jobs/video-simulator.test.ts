import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { path as ffprobePath } from '@ffprobe-installer/ffprobe';
import { startTestApp, type TestApp } from '../helpers/app';
import { BACKENDS } from '../helpers/backends';
import { fastJobsConfig, post, retrieveUntilDone, usdBalance } from './helpers';

/** What ffprobe says of an MP4: its video codec, size and duration (it decodes the file to say so). */
function probe(bytes: Uint8Array) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-probe-'));
  const file = join(dir, 'clip.mp4');
  writeFileSync(file, bytes);
  const out = spawnSync(ffprobePath, ['-v', 'error', '-count_frames', '-show_streams', '-show_format', '-of', 'json', file], {
    encoding: 'utf8',
  });
  rmSync(dir, { recursive: true, force: true });
  expect(out.status).toBe(0);
  return JSON.parse(out.stdout) as {
    streams: { codec_name: string; width: number; height: number; nb_read_frames: string }[];
    format: { duration: string };
  };
}

for (const backend of BACKENDS)
  describe(`video jobs on the simulator (${backend.name})`, () => {
    let t: TestApp;
    let dir: string;
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'svc-jobs-'));
      t = await startTestApp({ backend, config: fastJobsConfig(dir) });
    });
    afterAll(async () => {
      await t.close();
      rmSync(dir, { recursive: true, force: true });
    });

    test('quote, queue, PROCESSING, a playable H.264 MP4, complete, then 404; charged the quote once', async () => {
      const ask = { model: 'wan-2-7-text-to-video', duration: '2s', resolution: '480p', aspect_ratio: '16:9' };
      const quote = await post(t, '/video/quote', ask, null);
      expect(quote.status).toBe(200);
      // 2 s at 480p (0.05/s) plus 2 s of audio (0.02/s).
      expect(await quote.json()).toEqual({ quote: 0.14 });

      const before = await usdBalance(t);
      const queued = await post(t, '/video/queue', { ...ask, prompt: 'A gondola at dusk' });
      expect(queued.status).toBe(200);
      const { model, queue_id } = (await queued.json()) as { model: string; queue_id: string };
      expect(model).toBe('wan-2-7-text-to-video');

      const running = await post(t, '/video/retrieve', { model, queue_id });
      expect(running.status).toBe(200);
      const progress = (await running.json()) as { status: string; average_execution_time: number; execution_duration: number };
      expect(progress.status).toBe('PROCESSING');
      expect(progress.average_execution_time).toBeGreaterThan(0);
      expect(progress.execution_duration).toBeGreaterThanOrEqual(0);

      const done = await retrieveUntilDone(t, 'video', model, queue_id);
      expect(done.status).toBe(200);
      expect(done.headers.get('content-type')).toBe('video/mp4');
      const bytes = new Uint8Array(await done.arrayBuffer());
      const info = probe(bytes);
      expect(info.streams[0]!.codec_name).toBe('h264');
      expect(info.streams[0]!.width / info.streams[0]!.height).toBeCloseTo(16 / 9, 1);
      expect(Number(info.streams[0]!.nb_read_frames)).toBe(24);
      expect(Number(info.format.duration)).toBeCloseTo(2, 1);

      await t.deps.meter.flush();
      expect(before - (await usdBalance(t))).toBe(140_000);

      const range = await t.request('/video/retrieve', { method: 'POST', json: { model, queue_id }, headers: { range: 'bytes=4-11' } });
      expect(range.status).toBe(206);
      expect(range.headers.get('content-range')).toBe(`bytes 4-11/${bytes.length}`);
      expect([...new Uint8Array(await range.arrayBuffer())]).toEqual([...bytes.slice(4, 12)]);
      const tail = await t.request('/video/retrieve', { method: 'POST', json: { model, queue_id }, headers: { range: 'bytes=-5' } });
      expect([...new Uint8Array(await tail.arrayBuffer())]).toEqual([...bytes.slice(-5)]);
      const past = await t.request('/video/retrieve', {
        method: 'POST',
        json: { model, queue_id },
        headers: { range: `bytes=${bytes.length}-` },
      });
      expect(past.status).toBe(416);

      const complete = await post(t, '/video/complete', { model, queue_id });
      expect(await complete.json()).toEqual({ success: true });
      const gone = await post(t, '/video/retrieve', { model, queue_id });
      expect(gone.status).toBe(404);
      expect(((await gone.json()) as { error: string }).error).toContain('Media could not be found');
      const twice = await post(t, '/video/complete', { model, queue_id });
      expect(twice.status).toBe(400);
      expect(((await twice.json()) as { error: string }).error).toContain('queue_id');
      await t.deps.meter.flush();
      expect(before - (await usdBalance(t))).toBe(140_000);
    }, 60_000);
  });
