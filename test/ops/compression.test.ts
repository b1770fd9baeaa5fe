import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { Elysia } from 'elysia';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { compression, negotiateCoding } from '../../src/http/compression';
import { startTestApp, type TestApp } from '../helpers/app';

// What Chromium sends; Firefox and Safari send the same codings in other orders.
const BROWSER = 'gzip, deflate, br, zstd';
const big = 'svc '.repeat(5000);
const randomBase64 = Buffer.from(crypto.getRandomValues(new Uint8Array(40_000))).toString('base64');
const csv = ['at,model,amount', ...Array.from({ length: 400 }, (_, i) => `2026-01-01T00:00:${i},m-${i},0.00${i}`)].join('\n');

/** A tiny app with one route per body type, behind the compression plugin. */
const app = new Elysia()
  .use(compression())
  .get('/json', () => ({ items: Array.from({ length: 200 }, (_, i) => ({ i, name: `item-${i}` })) }))
  .get('/text', () => big)
  .get('/bytes', ({ set }) => {
    set.headers['content-type'] = 'application/x-ndjson';
    return new TextEncoder().encode(big);
  })
  .get('/small', () => ({ ok: true }))
  // Image data as JSON: base64 of random bytes, still over 15 KiB once compressed.
  .get('/random-json', () => ({ data: randomBase64 }))
  // Between 15 and 16 KiB, and non-ASCII text shorter than 15 Ki characters but longer in UTF-8: both over the threshold.
  .get('/edge-text', () => 'a'.repeat(15 * 1024 + 100))
  .get('/edge-utf8', () => ({ text: 'é'.repeat(8000) }))
  .get('/large-json', ({ set }) => {
    set.status = 201;
    set.headers['x-many'] = 'header';
    return { items: Array.from({ length: 1500 }, (_, i) => ({ i, name: `item-${i}`, note: 'ünïcode' })) };
  })
  .get('/csv', () => new Response(csv, { headers: { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': 'attachment' } }))
  .get('/download', () => {
    const parts = [csv.slice(0, 3000), csv.slice(3000)];
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        const next = parts.shift();
        if (next === undefined) c.close();
        else c.enqueue(new TextEncoder().encode(next));
      },
    });
    return new Response(body, { headers: { 'content-type': 'text/csv' } });
  })
  .get('/events', () => new Response(`data: ${big}\n\n`, { headers: { 'content-type': 'text/event-stream' } }))
  .get('/png', () => new Response(new Uint8Array(4096), { headers: { 'content-type': 'image/png' } }));

async function get(path: string, acceptEncoding?: string) {
  const headers: Record<string, string> = acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding };
  const res = await app.handle(new Request(`http://localhost${path}`, { headers }));
  return { res, bytes: new Uint8Array(await res.arrayBuffer()) };
}

function decoded(coding: string | null, bytes: Uint8Array): string {
  const raw = coding === 'br' ? brotliDecompressSync(bytes) : coding === 'gzip' ? gunzipSync(bytes) : Buffer.from(bytes);
  return raw.toString('utf8');
}

describe('negotiation (RFC 9110, by negotiator)', () => {
  test.each([
    [BROWSER, 'br'],
    ['gzip', 'gzip'],
    ['br;q=0, gzip', 'gzip'],
    ['gzip;q=0.5, br;q=0.2', 'gzip'],
    ['*', 'br'],
    ['*;q=0, identity', null],
    ['gzip;q=0', null],
    ['br;q=0, gzip;q=0', null],
    ['identity', null],
    ['deflate', null],
    ['', null],
  ])('%p -> %p', (header, expected) => {
    expect(negotiateCoding(header)).toBe(expected as never);
  });
});

describe('every body type', () => {
  test.each([
    ['/json', 'application/json'],
    ['/text', 'text/plain'],
    ['/bytes', 'application/x-ndjson'],
    ['/csv', 'text/csv'],
    ['/download', 'text/csv'],
  ])('%s is compressed with br and gzip and decodes to the identity body', async (path, type) => {
    const { bytes: plain, res: identity } = await get(path);
    expect(identity.headers.get('content-encoding')).toBeNull();
    for (const coding of ['br', 'gzip']) {
      const { res, bytes } = await get(path, coding);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-encoding')).toBe(coding);
      expect(res.headers.get('vary')?.toLowerCase()).toContain('accept-encoding');
      expect(res.headers.get('content-type')).toContain(type);
      expect(bytes.length).toBeLessThan(plain.length);
      expect(decoded(coding, bytes)).toBe(new TextDecoder().decode(plain));
    }
  });

  test('q=0 refuses a coding: gzip;q=0 gets identity, br;q=0 gets gzip', async () => {
    expect((await get('/json', 'gzip;q=0')).res.headers.get('content-encoding')).toBeNull();
    const { res, bytes } = await get('/csv', 'br;q=0, gzip');
    expect(res.headers.get('content-encoding')).toBe('gzip');
    expect(decoded('gzip', bytes)).toBe(csv);
  });

  test('small bodies, event streams and images are sent as they are', async () => {
    for (const path of ['/small', '/events', '/png']) {
      const { res } = await get(path, BROWSER);
      expect(res.headers.get('content-encoding')).toBeNull();
    }
  });
});

// Over Bun's 16 KB cork buffer a body given whole would send every header piece in its own
// system call (src/http/large-body.ts): a large uncompressed JSON or text answer goes as a stream.
describe('large uncompressed bodies over a real socket', () => {
  let server: ReturnType<typeof app.listen>;
  let base: string;
  beforeAll(() => {
    server = app.listen({ port: 0, hostname: '127.0.0.1' });
    base = `http://127.0.0.1:${server.server!.port}`;
  });
  afterAll(() => server.stop());
  const plain = (path: string) => fetch(`${base}${path}`, { headers: { 'accept-encoding': 'identity' } });

  test('an object whose JSON is over 16 KB arrives whole and chunked, with its status, type and headers', async () => {
    const res = await plain('/large-json');
    expect(res.status).toBe(201);
    expect(res.headers.get('transfer-encoding')).toBe('chunked');
    // The type Elysia gives a small object's JSON.
    expect(res.headers.get('content-type')).toBe((await plain('/small')).headers.get('content-type')!);
    expect(res.headers.get('x-many')).toBe('header');
    expect(res.headers.get('vary')?.toLowerCase()).toContain('accept-encoding');
    const text = await res.text();
    expect(text.length).toBeGreaterThan(16 * 1024);
    expect(JSON.parse(text).items[1499]).toEqual({ i: 1499, name: 'item-1499', note: 'ünïcode' });
  });

  test('bodies just over 15 KiB of UTF-8 arrive chunked too', async () => {
    for (const path of ['/edge-text', '/edge-utf8']) {
      const res = await plain(path);
      expect(res.headers.get('transfer-encoding')).toBe('chunked');
      expect(Buffer.byteLength(await res.text())).toBeGreaterThanOrEqual(15 * 1024);
    }
  });

  test('large bytes arrive whole and chunked, with the type their route named', async () => {
    const res = await plain('/bytes');
    expect(res.headers.get('transfer-encoding')).toBe('chunked');
    expect(res.headers.get('content-type')).toBe('application/x-ndjson');
    expect(await res.text()).toBe(big);
  });

  test('a body compressed whole to over 15 KiB arrives chunked and decodes to the JSON', async () => {
    for (const coding of ['gzip', 'br']) {
      const res = await fetch(`${base}/random-json`, { headers: { 'accept-encoding': coding }, decompress: false });
      expect(res.headers.get('content-encoding')).toBe(coding);
      expect(res.headers.get('transfer-encoding')).toBe('chunked');
      const bytes = new Uint8Array(await res.arrayBuffer());
      expect(bytes.length).toBeGreaterThan(15 * 1024);
      expect(JSON.parse(decoded(coding, bytes))).toEqual({ data: randomBase64 });
    }
  });

  test('a long string arrives chunked as text; a small object keeps its length', async () => {
    const text = await plain('/text');
    expect(text.headers.get('transfer-encoding')).toBe('chunked');
    expect(text.headers.get('content-type')).toStartWith('text/plain');
    expect(await text.text()).toBe(big);
    const small = await plain('/small');
    expect(small.headers.get('content-length')).toBe('11');
    expect(small.headers.get('content-type')).toStartWith('application/json');
    expect(await small.json()).toEqual({ ok: true });
  });
});

describe('the service', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const fetchRoot = (path: string, acceptEncoding: string) =>
    t.app.handle(new Request(`http://localhost${path}`, { headers: { 'accept-encoding': acceptEncoding } }));

  test('/docs, its assets and /openapi.yaml answer a browser-like Accept-Encoding (it used to be a 500)', async () => {
    const page = await fetchRoot('/docs', BROWSER);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const html = await page.text();
    expect(html).toContain('swagger-ui-bundle.js');
    expect(html).not.toMatch(/https?:\/\/(cdn|unpkg|fonts)/);

    const yaml = await fetchRoot('/api/v1/openapi.yaml', BROWSER);
    expect(yaml.status).toBe(200);
    expect(yaml.headers.get('content-encoding')).toBe('br');
    expect(decoded('br', new Uint8Array(await yaml.arrayBuffer()))).toStartWith('openapi: 3.');

    const script = /src="([^"]+swagger-ui-bundle\.js)"/.exec(html)![1]!;
    for (const coding of ['br', 'gzip']) {
      const asset = await fetchRoot(script, coding);
      expect(asset.status).toBe(200);
      expect(asset.headers.get('content-encoding')).toBe(coding);
      expect(asset.headers.get('cache-control')).toContain('immutable');
      expect(decoded(coding, new Uint8Array(await asset.arrayBuffer()))).toContain('SwaggerUIBundle');
    }
    const identity = await fetchRoot(script, 'identity');
    expect(identity.headers.get('content-encoding')).toBeNull();
    expect((await fetchRoot('/docs/assets/0.0.0/swagger-ui-bundle.js', BROWSER)).status).toBe(404);
  });

  test('over a socket, /openapi.json and a docs asset arrive whole and chunked, with their types', async () => {
    const server = t.app.listen({ port: 0, hostname: '127.0.0.1' });
    try {
      const base = `http://127.0.0.1:${server.server!.port}`;
      const json = await fetch(`${base}/api/v1/openapi.json`, { headers: { 'accept-encoding': 'identity' } });
      expect(json.status).toBe(200);
      expect(json.headers.get('transfer-encoding')).toBe('chunked');
      expect(json.headers.get('content-type')).toStartWith('application/json');
      expect(json.headers.get('cf-ray')).toBeTruthy();
      expect((await json.json()).openapi).toStartWith('3.');
      const html = await (await fetch(`${base}/docs`)).text();
      const script = /src="([^"]+swagger-ui-bundle\.js)"/.exec(html)![1]!;
      const asset = await fetch(`${base}${script}`, { headers: { 'accept-encoding': 'gzip' }, decompress: false });
      expect(asset.headers.get('content-encoding')).toBe('gzip');
      expect(asset.headers.get('transfer-encoding')).toBe('chunked');
      expect(decoded('gzip', new Uint8Array(await asset.arrayBuffer()))).toContain('SwaggerUIBundle');
    } finally {
      await server.stop(true);
    }
  });

  test('a JSON route compresses, and the error path still renders its body', async () => {
    const models = await t.request('/models', { headers: { 'accept-encoding': BROWSER } });
    expect(models.headers.get('content-encoding')).toBe('br');
    expect(JSON.parse(decoded('br', new Uint8Array(await models.arrayBuffer()))).data.length).toBeGreaterThan(0);
    const missing = await t.request('/no-such-route', { headers: { 'accept-encoding': BROWSER } });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: 'Not found' });
  });
});
