import { afterAll, beforeAll, describe as suite, expect, test } from 'bun:test';
import { startTestApp, type TestApp } from '../helpers/app';
import { describe, png } from './helpers';

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
