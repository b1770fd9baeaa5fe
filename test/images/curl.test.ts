import { afterAll, beforeAll, describe as suite, expect, test } from 'bun:test';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApp, type TestApp } from '../helpers/app';
import { describe, png } from './helpers';

const CURL = Bun.which('curl');

/** The check a user makes: curl's own multipart uploads against a listening svc on the built-in catalog. */
suite.skipIf(!CURL)('curl multipart uploads', () => {
  let t: TestApp;
  let base: string;
  let dir: string;

  beforeAll(async () => {
    t = await startTestApp();
    t.app.listen({ port: 0, hostname: '127.0.0.1' });
    base = `http://127.0.0.1:${t.app.server?.port}/api/v1`;
    dir = mkdtempSync(join(tmpdir(), 'svc-curl-'));
    writeFileSync(join(dir, 'a.png'), await png(800, 600));
    writeFileSync(join(dir, 'b.png'), await png(600, 800, { r: 250, g: 200, b: 10 }));
  });
  afterAll(async () => {
    await t.app.stop(true);
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs curl with `args`, writing the body to a file; returns the status, content type and body. */
  async function curl(path: string, args: string[]) {
    const out = join(dir, `out-${Math.random()}`);
    const proc = Bun.spawn(
      [
        CURL as string,
        '-s',
        '-o',
        out,
        '-w',
        '%{http_code} %{content_type}',
        '-H',
        `Authorization: Bearer ${t.adminKey}`,
        ...args,
        `${base}${path}`,
      ],
      {
        cwd: dir,
      },
    );
    const [status, type] = (await new Response(proc.stdout).text()).split(' ');
    return { status: Number(status), type, body: readFileSync(out) };
  }

  test('edit: -F image=@a.png with output_format and resolution gives that format and size', async () => {
    const res = await curl('/image/edit', [
      '-F',
      'prompt=add a hat',
      '-F',
      'image=@a.png',
      '-F',
      'output_format=webp',
      '-F',
      'resolution=2K',
    ]);
    expect(res.status).toBe(200);
    expect(res.type).toBe('image/webp');
    // 800x600 is closest to 3:2 of the supported ratios; 2K at 3:2 is 2512 x 1680.
    expect(await describe(res.body)).toMatchObject({ format: 'webp', width: 2512, height: 1680 });
  });

  test('multi-edit: two -F images=@ files and an aspect ratio give the image asked for', async () => {
    const res = await curl('/image/multi-edit', [
      '-F',
      'prompt=merge',
      '-F',
      'images=@a.png',
      '-F',
      'images=@b.png',
      '-F',
      'aspect_ratio=9:16',
      '-F',
      'output_format=jpg',
    ]);
    expect(res.status).toBe(200);
    expect(res.type).toBe('image/jpeg');
    expect(await describe(res.body)).toMatchObject({ format: 'jpeg', width: 768, height: 1360 });
  });

  test('a binary image over the socket arrives whole and chunked (one write with its headers), with its type and svc headers', async () => {
    const res = await fetch(`${base}/image/generate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'z-image-turbo', prompt: 'a red fox', format: 'png', return_binary: true, width: 1024, height: 1024 }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('transfer-encoding')).toBe('chunked');
    expect(res.headers.get('cf-ray')).toBeTruthy();
    expect(res.headers.get('x-svc-version')).toBeTruthy();
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect(bytes.length).toBeGreaterThan(15 * 1024);
    expect(await describe(bytes)).toMatchObject({ format: 'png', width: 1024, height: 1024 });
  });

  test('a bad field is a 400 naming it; an empty POST is 415', async () => {
    const bad = await curl('/image/edit', ['-F', 'prompt=x', '-F', 'image=@a.png', '-F', 'safe_mode=maybe']);
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body.toString()).error).toContain('safe_mode');
    expect((await curl('/image/multi-edit', ['-X', 'POST'])).status).toBe(415);
  });
});
