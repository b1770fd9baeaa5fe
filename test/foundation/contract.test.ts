import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startTestApp, type TestApp } from '../helpers/app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

function expectContractHeaders(res: Response) {
  expect(res.headers.get('cf-ray')).toMatch(/^[0-9a-f]{18}-SVC$/);
  expect(res.headers.get('x-svc-version')).toMatch(/^\d{8}\.\d{6}$/);
  expect(res.headers.get('content-type')).toContain('application/json');
  expect(new Date(res.headers.get('date') ?? '').getTime()).toBeGreaterThan(Date.now() - 5_000);
}

describe('error and header contract', () => {
  test('every response carries a unique CF-RAY and the version', async () => {
    const a = await t.request('/models');
    const b = await t.request('/models');
    expect(a.status).toBe(200);
    expectContractHeaders(a);
    expect(a.headers.get('cf-ray')).not.toBe(b.headers.get('cf-ray'));
  });

  test('unknown route is a 404 StandardError with the headers', async () => {
    const res = await t.request('/no/such/route');
    expect(res.status).toBe(404);
    expectContractHeaders(res);
    expect(await res.json()).toEqual({ error: 'Not found' });
    expect(res.headers.get('x-svc-host-name')).toBeTruthy();
  });

  test('authentication comes before body validation: no key and a bad body is a 401, a key and the same body a 400', async () => {
    const bad = { method: 'POST', json: { model: 42 } };
    const anonymous = await t.request('/chat/completions', { ...bad, key: null });
    expect(anonymous.status).toBe(401);
    expectContractHeaders(anonymous);
    expect(await anonymous.json()).toEqual({ error: 'Authentication failed: missing Authorization header' });
    const wrongKey = await t.request('/api_keys', { method: 'POST', json: { apiKeyType: 'NOPE' }, key: 'svc_wrong' });
    expect(wrongKey.status).toBe(401);
    const keyed = await t.request('/chat/completions', bad);
    expect(keyed.status).toBe(400);
    expect((await keyed.json()).details.model._errors.length).toBeGreaterThan(0);
  });

  test('a bad query value is a 400 DetailedError naming the field', async () => {
    const res = await t.request('/models?type=bogus');
    expect(res.status).toBe(400);
    expectContractHeaders(res);
    const body = await res.json();
    expect(body.error).toContain('type');
    expect(body.details.type._errors[0]).toContain('text');
  });

  test('an oversize body is refused with 413 before it is read', async () => {
    const res = await t.request('/models', { method: 'POST', body: 'x', headers: { 'content-length': String(64 * 1024 * 1024) } });
    expect(res.status).toBe(413);
    expectContractHeaders(res);
    expect((await res.json()).code).toBe('PAYLOAD_TOO_LARGE');
  });

  test('Accept-Encoding br and gzip compress non-streaming bodies', async () => {
    for (const encoding of ['br', 'gzip']) {
      const res = await t.request('/models', { headers: { 'accept-encoding': encoding } });
      expect(res.headers.get('content-encoding')).toBe(encoding);
      expect(res.headers.get('cf-ray')).toBeTruthy();
    }
  });
});

describe('models', () => {
  test('lists text models by default, labels simulator models', async () => {
    const res = await t.request('/models', { key: null });
    const body = await res.json();
    expect(body.object).toBe('list');
    expect(body.type).toBe('text');
    expect(body.data.length).toBeGreaterThan(0);
    for (const m of body.data) {
      expect(m.type).toBe('text');
      expect(m.model_spec.simulator).toBe(true);
    }
  });

  test('filters by type', async () => {
    const body = await (await t.request('/models?type=embedding')).json();
    expect(body.data.map((m: { id: string }) => m.id)).toEqual(['text-embedding-bge-m3']);
  });

  test('traits and compatibility mapping', async () => {
    const traits = await (await t.request('/models/traits')).json();
    expect(traits).toMatchObject({ object: 'list', type: 'text', data: { default: 'llama-3.3-70b' } });
    const compat = await (await t.request('/models/compatibility_mapping')).json();
    expect(compat.data['gpt-4o']).toBe('llama-3.3-70b');
  });

  test('an invalid key on a public route is still refused', async () => {
    const res = await t.request('/models', { key: 'svc_wrong' });
    expect(res.status).toBe(401);
  });
});

describe('openapi', () => {
  test('YAML and JSON descriptions with the version string', async () => {
    const yaml = await t.request('/openapi.yaml');
    expect(yaml.status).toBe(200);
    const text = await yaml.text();
    expect(text).toContain('openapi: 3.');
    expect(text).toContain('\n  /models:');
    expect(text).toContain('url: /api/v1');
    const json = await (await t.request('/openapi.json')).json();
    expect(json.info.version).toMatch(/^\d{8}\.\d{6}$/);
  });
});
