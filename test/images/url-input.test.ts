import { afterAll, beforeAll, describe as suite, expect, test } from 'bun:test';
import { startTestApp, type TestApp } from '../helpers/app';
import { describe, png } from './helpers';
import { rejectionOf } from '../helpers/rejection';

/** Image URLs with private addresses allowed (an operator's `allowPrivateUrls`), served by a local server. */
suite('image inputs by URL', () => {
  let t: TestApp;
  let server: ReturnType<typeof Bun.serve>;
  let base: string;

  beforeAll(async () => {
    const image = await png(640, 480);
    server = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      fetch(req) {
        const path = new URL(req.url).pathname;
        if (path === '/photo.png') return new Response(new Uint8Array(image), { headers: { 'content-type': 'image/png' } });
        if (path === '/moved') return Response.redirect('/photo.png', 302);
        if (path === '/huge') return new Response(new Uint8Array(26 * 1024 * 1024), { headers: { 'content-type': 'image/png' } });
        return new Response('no', { status: 404 });
      },
    });
    base = `http://127.0.0.1:${server.port}`;
    t = await startTestApp({ config: { allowPrivateUrls: true } });
  });
  afterAll(async () => {
    await t.close();
    await server.stop(true);
  });

  const edit = (json: unknown) => t.request('/image/edit', { method: 'POST', json });

  test('an http URL (and one behind a redirect) is fetched and edited; auto ratio follows it (640x480 is 3:2 of the supported)', async () => {
    for (const url of [`${base}/photo.png`, `${base}/moved`]) {
      const res = await edit({ prompt: 'x', image: url });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-svc-aspect-ratio')).toBe('3:2');
      expect(await describe(await res.arrayBuffer())).toMatchObject({ format: 'png', width: 1248, height: 832 });
    }
    const multi = await t.request('/image/multi-edit', { method: 'POST', json: { prompt: 'x', images: [`${base}/photo.png`] } });
    expect(multi.status).toBe(200);
    const bg = await t.request('/image/background-remove', { method: 'POST', json: { image_url: `${base}/photo.png` } });
    expect(bg.status).toBe(200);
  });

  test('a body over 25 MB is refused by the size cap; a 404 is refused naming the field', async () => {
    const huge = await edit({ prompt: 'x', image: `${base}/huge` });
    expect(huge.status).toBe(400);
    expect((await huge.json()).details.image._errors[0]).toContain('larger than');
    const missing = await edit({ prompt: 'x', image: `${base}/missing.png` });
    expect(missing.status).toBe(400);
    expect((await missing.json()).details.image._errors[0]).toContain('404');
  });
});

/** Operators name their own models: a request without `model` gets the first model of the catalog that does the operation. */
suite('image routes on a catalog without the reference default ids', () => {
  let t: TestApp;
  beforeAll(async () => {
    const sim = [{ provider: 'sim', weight: 1 }];
    t = await startTestApp({
      config: {
        providers: [{ id: 'sim', kind: 'simulator', options: {} }],
        models: [
          { id: 'my-gen', type: 'image', routes: sim, pricing: { perUnit: '0.01' }, image: { operation: 'generate' } },
          { id: 'my-edit', type: 'inpaint', routes: sim, pricing: { perUnit: '0.02' }, image: { operation: 'edit' } },
          { id: 'my-up', type: 'upscale', routes: sim, pricing: { perUnit: '0.03' }, image: { operation: 'upscale' } },
          { id: 'my-bg', type: 'image', routes: sim, pricing: { perUnit: '0.04' }, image: { operation: 'background-remove' } },
        ],
      },
    });
  });
  afterAll(() => t.close());

  test('each route defaults to the model of its operation', async () => {
    const image = (await png(512, 512)).toString('base64');
    for (const [path, body, id] of [
      ['/images/generations', { prompt: 'x' }, 'my-gen'],
      ['/image/edit', { prompt: 'x', image }, 'my-edit'],
      ['/image/multi-edit', { prompt: 'x', images: [image] }, 'my-edit'],
      ['/image/upscale', { image }, 'my-up'],
      ['/image/background-remove', { image }, 'my-bg'],
    ] as const) {
      const res = await t.request(path, { method: 'POST', json: body });
      expect(`${path} ${res.status} ${res.headers.get('x-svc-model-id')}`).toBe(`${path} 200 ${id}`);
    }
  });
});

test('an edit or upscale model routed to a provider without the images capability stops the start', async () => {
  for (const type of ['inpaint', 'upscale'])
    expect(
      (
        await rejectionOf(
          startTestApp({
            config: {
              providers: [{ id: 'chat-only', kind: 'openai-compatible', baseURL: 'http://127.0.0.1:1/v1', capabilities: ['chat'] }],
              models: [{ id: 'e', type, routes: [{ provider: 'chat-only' }], pricing: { perUnit: '0.01' } }],
            },
          }),
        )
      ).message,
    ).toContain('does not serve "images"');
});
