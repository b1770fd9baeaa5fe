import { afterAll, beforeAll, describe as suite, expect, test } from 'bun:test';
import sharp from 'sharp';
import { startTestApp, type TestApp } from '../helpers/app';
import { rejectionOf } from '../helpers/rejection';
import { createLogger } from '../../src/log';

/** Safe mode with an operator-configured adult-content classifier (config `images.safetyClassifier`). */
suite('the configured safety classifier', () => {
  let t: TestApp;
  let server: ReturnType<typeof Bun.serve>;
  let verdict: 'adult' | 'safe' | 'broken' = 'safe';
  const seen: { type: string | null; bytes: number; auth: string | null }[] = [];
  const lines: Record<string, unknown>[] = [];

  beforeAll(async () => {
    server = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      async fetch(req) {
        seen.push({
          type: req.headers.get('content-type'),
          bytes: (await req.arrayBuffer()).byteLength,
          auth: req.headers.get('authorization'),
        });
        if (verdict === 'broken') return new Response('down', { status: 500 });
        return Response.json({ nsfw: verdict === 'adult' });
      },
    });
    t = await startTestApp({
      config: { images: { safetyClassifier: { url: `http://127.0.0.1:${server.port}/classify`, apiKey: 'classifier-key' } } },
      log: createLogger('warn', (line) => void lines.push(JSON.parse(line))),
    });
  });
  afterAll(async () => {
    await t.close();
    await server.stop(true);
  });

  const generate = (json: Record<string, unknown>) =>
    t.request('/image/generate', {
      method: 'POST',
      json: { model: 'z-image-turbo', prompt: 'a quiet harbour', return_binary: true, format: 'png', ...json },
    });

  test('the classifier gets each image; its verdict decides the blur', async () => {
    verdict = 'safe';
    const plain = await generate({});
    expect(plain.status).toBe(200);
    expect(plain.headers.get('x-svc-is-blurred')).toBe('false');
    expect(seen.at(-1)).toMatchObject({ type: 'image/png', auth: 'Bearer classifier-key' });
    expect(seen.at(-1)?.bytes).toBeGreaterThan(1000);
    verdict = 'adult';
    const blurred = await generate({});
    expect(blurred.headers.get('x-svc-is-blurred')).toBe('true');
    expect(Buffer.from(await blurred.arrayBuffer()).equals(Buffer.from(await plain.arrayBuffer()))).toBe(false);
  });

  test('edits are classified too', async () => {
    verdict = 'adult';
    const square = await sharp({ create: { width: 512, height: 512, channels: 3, background: 'blue' } })
      .png()
      .toBuffer();
    const res = await t.request('/image/edit', { method: 'POST', json: { prompt: 'x', image: square.toString('base64') } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-svc-is-blurred')).toBe('true');
  });

  test('safe_mode=false skips the classifier; a failing classifier blurs (fails closed)', async () => {
    verdict = 'adult';
    const n = seen.length;
    const off = await generate({ safe_mode: false });
    expect(off.headers.get('x-svc-is-blurred')).toBe('false');
    expect(seen.length).toBe(n);
    verdict = 'broken';
    const down = await generate({});
    expect(down.status).toBe(200);
    expect(down.headers.get('x-svc-is-blurred')).toBe('true');
    // The warning names the request, so it correlates with the access log and the request log.
    const warned = lines.find((l) => String(l.msg).startsWith('image safety classifier failed'));
    expect(warned?.requestId).toBe(down.headers.get('cf-ray'));
  });

  test('a bad images section stops the start, naming the field', async () => {
    expect((await rejectionOf(startTestApp({ config: { images: { safetyClassifier: { url: 'ftp://x' } } } }))).message).toContain(
      'images.safetyClassifier.url',
    );
    expect((await rejectionOf(startTestApp({ config: { images: { safetyClasifier: { url: 'http://x' } } } }))).message).toContain(
      'unknown field "images.safetyClasifier" (did you mean "safetyClassifier"?)',
    );
  });
});
