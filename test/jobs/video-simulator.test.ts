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
    }, 120_000);

    test('seedance with an image and no consent: the reference 409 needs_consent; with consent the data URL input is accepted', async () => {
      const sharp = (await import('sharp')).default;
      const png = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#804020' } })
        .png()
        .toBuffer();
      const ask = {
        model: 'seedance-2-0-reference-to-video',
        duration: '5s',
        prompt: 'She turns and smiles',
        image_url: `data:image/png;base64,${png.toString('base64')}`,
      };
      const before = await usdBalance(t);
      const refused = await post(t, '/video/queue', ask);
      expect(refused.status).toBe(409);
      const body = (await refused.json()) as Record<string, unknown>;
      expect(body).toMatchObject({ error: { code: 'needs_consent' }, consent_flow: 'seedance', face_media_roles: ['image'] });
      expect(Object.keys(body.consent as object).sort()).toEqual(['consent_version', 'policy_text']);
      expect(typeof body.docs_url).toBe('string');
      const partial = await post(t, '/video/queue', { ...ask, consents: { seedance: { confirmed_terms_and_privacy: true } } });
      expect(partial.status).toBe(400);
      const consents = {
        seedance: { confirmed_terms_and_privacy: true, confirmed_legal_right: true, confirmed_screening_acknowledged: true },
      };
      const accepted = await post(t, '/video/queue', { ...ask, consents });
      expect(accepted.status).toBe(200);
      const { queue_id } = (await accepted.json()) as { queue_id: string };
      const done = await retrieveUntilDone(t, 'video', 'seedance-2-0-reference-to-video', queue_id);
      expect(done.headers.get('content-type')).toBe('video/mp4');
      await t.deps.meter.flush();
      // 5 s at 720p (the model's default resolution), 0.12/s; the refusals cost nothing.
      expect(before - (await usdBalance(t))).toBe(600_000);
    }, 120_000);

    test('audio on the simulator: a real WAV of the asked length, charged per second', async () => {
      const before = await usdBalance(t);
      const res = await post(t, '/audio/queue', { model: 'elevenlabs-music', prompt: 'Rain on a tin roof', duration_seconds: 6 });
      const { queue_id } = (await res.json()) as { queue_id: string };
      const done = await retrieveUntilDone(t, 'audio', 'elevenlabs-music', queue_id);
      expect(done.headers.get('content-type')).toBe('audio/wav');
      const wav = new Uint8Array(await done.arrayBuffer());
      const view = new DataView(wav.buffer);
      expect(new TextDecoder().decode(wav.slice(0, 4))).toBe('RIFF');
      expect(new TextDecoder().decode(wav.slice(8, 12))).toBe('WAVE');
      const rate = view.getUint32(24, true);
      expect(view.getUint32(40, true) / (rate * 2)).toBe(6);
      await t.deps.meter.flush();
      expect(before - (await usdBalance(t))).toBe(60_000);
    }, 120_000);

    test('the simulator can be told to fail or refuse: refunded, and the states show in /metrics', async () => {
      const before = await usdBalance(t);
      const failing = (await (
        await post(t, '/video/queue', { model: 'wan-2-7-text-to-video', duration: '2s', prompt: 'x [simulate:fail]' })
      ).json()) as { queue_id: string };
      const refusing = (await (await post(t, '/audio/queue', { model: 'elevenlabs-music', prompt: 'x [simulate:refuse]' })).json()) as {
        queue_id: string;
      };
      expect((await retrieveUntilDone(t, 'video', 'wan-2-7-text-to-video', failing.queue_id)).status).toBe(500);
      const refused = await retrieveUntilDone(t, 'audio', 'elevenlabs-music', refusing.queue_id);
      expect(refused.status).toBe(422);
      expect(((await refused.json()) as { error: { type: string } }).error.type).toBe('provider_content_policy');
      expect(await usdBalance(t)).toBe(before);
      const metrics = await (await t.app.handle(new Request('http://localhost/metrics'))).text();
      expect(metrics).toMatch(/svc_media_jobs\{status="FAILED"\} [1-9]/);
      expect(metrics).toMatch(/svc_media_jobs\{status="REFUSED"\} [1-9]/);
      expect(metrics).toContain('svc_media_job_oldest_running_seconds');
      expect(metrics).toContain('svc_media_job_poll_lag_seconds');
    }, 120_000);
  });
