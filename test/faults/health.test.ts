import { afterAll, beforeAll, expect, test } from 'bun:test';
import { startTestApp, type TestApp } from '../helpers/app';
import { BACKENDS } from '../helpers/backends';

// The load balancer's view: unauthenticated, outside the API prefix and every limit.
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ backend: BACKENDS.at(-1), config: { rateLimits: { apiRpm: 1 } } });
});
afterAll(() => t.close());

const get = (path: string, headers: Record<string, string> = {}) => t.app.handle(new Request(`http://localhost${path}`, { headers }));

test('GET /health/live answers without credentials, with the standard headers', async () => {
  const res = await get('/health/live');
  expect(res.status).toBe(200);
  expect(await res.json()).toMatchObject({ status: 'ok' });
  expect(res.headers.get('cf-ray')).toBeTruthy();
  expect(res.headers.get('x-svc-version')).toBeTruthy();
});

test('GET /health/ready reports each check, and is never rate limited (the account limit here is 1 a minute)', async () => {
  for (let i = 0; i < 5; i++) {
    const res = await get('/health/ready', { authorization: `Bearer ${t.adminKey}` });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toEqual({ status: 'ready', checks: { database: 'ok', kv: 'ok', migrations: 'ok', ledger: 'ok' } });
  }
  // The API itself is limited: the second account request in the minute is refused.
  expect((await t.request('/api_keys/rate_limits')).status).toBe(200);
  expect((await t.request('/api_keys/rate_limits')).status).toBe(429);
});

test('a closed database turns /health/ready to 503 naming it', async () => {
  const other = await startTestApp({ backend: BACKENDS.at(-1) });
  await other.deps.storage.close();
  const res = await other.app.handle(new Request('http://localhost/health/ready'));
  expect(res.status).toBe(503);
  const body = await res.json();
  expect(body.error).toContain('database');
  expect(body.checks.database).not.toBe('ok');
  expect((await other.app.handle(new Request('http://localhost/health/live'))).status).toBe(200);
  await other.close().catch(() => {});
});
