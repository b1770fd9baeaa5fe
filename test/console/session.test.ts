import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { BACKENDS } from '../helpers/backends';
import { startTestApp, type TestApp } from '../helpers/app';

// The console's server side over HTTP: the key-for-cookie exchange, the cookie's flags, CSRF
// and Origin checks on state-changing requests, INFERENCE keys refused, expiry and sign-out.
let clock = Date.now();
let t: TestApp;
const url = (path: string) => `http://localhost${path}`;

async function signIn(key: string, headers: Record<string, string> = {}) {
  return t.app.handle(
    new Request(url('/console/session'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ key }),
    }),
  );
}

/** Signs in with the bootstrap ADMIN key: the cookie pair and the CSRF token. */
async function session() {
  const res = await signIn(t.adminKey);
  expect(res.status).toBe(200);
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] as string;
  const body = (await res.json()) as { data: { csrfToken: string } };
  return { cookie, csrf: body.data.csrfToken };
}

/** A request with the session cookie and no Authorization header (as the page sends them). */
function withCookie(path: string, cookie: string, init: RequestInit & { json?: unknown } = {}) {
  const headers = new Headers(init.headers);
  headers.set('cookie', cookie);
  if (init.json !== undefined) headers.set('content-type', 'application/json');
  const body = init.json === undefined ? init.body : JSON.stringify(init.json);
  return t.app.handle(new Request(url(path), { ...init, headers, body }));
}

beforeAll(async () => {
  t = await startTestApp({
    // Postgres + Redis when DATABASE_URL and REDIS_URL are set, else the embedded pair.
    backend: BACKENDS.at(-1),
    now: () => clock,
  });
});
afterAll(() => t.close());

describe('console sign-in', () => {
  test('an ADMIN key becomes an httpOnly SameSite=Strict cookie; the body holds the CSRF token, never the key', async () => {
    const res = await signIn(t.adminKey);
    expect(res.status).toBe(200);
    const cookie = res.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^svc_console=[A-Za-z0-9_-]{43}; /);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    expect(cookie).toContain('Path=/');
    expect(cookie).not.toContain('Secure');
    const text = await res.text();
    expect(text).not.toContain(t.adminKey);
    const body = JSON.parse(text) as { data: { csrfToken: string; operator: boolean; accountId: string } };
    expect(body.data.csrfToken.length).toBeGreaterThan(30);
    expect(body.data.operator).toBe(true);
    expect(res.headers.get('cf-ray')).toBeTruthy();
  });

  test("another account's ADMIN key signs in without the operator pages, which refuse it", async () => {
    const scratch = await t.request('/admin/accounts', { method: 'POST', json: { scratch: true } });
    const key = ((await scratch.json()) as { data: { apiKey: { apiKey: string } } }).data.apiKey.apiKey;
    const res = await signIn(key);
    expect(((await res.json()) as { data: { operator: boolean } }).data.operator).toBe(false);
    const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] as string;
    expect((await withCookie('/console/api/accounts', cookie)).status).toBe(403);
    expect((await withCookie('/api/v1/api_keys', cookie)).status).toBe(200);
  });

  test('behind an HTTPS proxy the cookie is Secure', async () => {
    const res = await signIn(t.adminKey, { 'x-forwarded-proto': 'https' });
    expect(res.headers.get('set-cookie')).toContain('; Secure');
  });

  test('an INFERENCE key is refused with 403, an unknown key with 401, a missing key with 400 naming it', async () => {
    const created = await t.request('/api_keys', { method: 'POST', json: { apiKeyType: 'INFERENCE', description: 'inference only' } });
    const inference = ((await created.json()) as { data: { apiKey: string } }).data.apiKey;
    const refused = await signIn(inference);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: string }).error).toContain('ADMIN');
    expect(refused.headers.get('set-cookie')).toBeNull();
    expect((await signIn('svc_not-a-key')).status).toBe(401);
    const missing = await t.app.handle(
      new Request(url('/console/session'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }),
    );
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { error: string }).error).toContain('key');
  });

  test('a sign-in posted from another site is refused (Origin check)', async () => {
    expect((await signIn(t.adminKey, { origin: 'https://evil.example' })).status).toBe(403);
    expect((await signIn(t.adminKey, { origin: 'http://localhost' })).status).toBe(200);
  });
});

describe('the session cookie on the API', () => {
  test('reads ADMIN and OPERATOR routes without a bearer key', async () => {
    const { cookie } = await session();
    expect((await withCookie('/api/v1/api_keys', cookie)).status).toBe(200);
    const accounts = await withCookie('/console/api/accounts', cookie);
    expect(accounts.status).toBe(200);
    const list = (await accounts.json()) as { data: { operator: boolean; balances: Record<string, number> }[] };
    expect(list.data.find((a) => a.operator)?.balances.USD).toBe(100);
    const live = (await (await withCookie('/console/api/live', cookie)).json()) as { data: { requestsPerSecond: number } };
    expect(typeof live.data.requestsPerSecond).toBe('number');
    expect((await withCookie('/console/session', cookie)).status).toBe(200);
  });

  test('a state-changing request needs the CSRF token (403 without or with a wrong one, or from another origin)', async () => {
    const { cookie, csrf } = await session();
    const create = (headers: Record<string, string>) =>
      withCookie('/api/v1/api_keys', cookie, { method: 'POST', headers, json: { apiKeyType: 'INFERENCE', description: 'csrf' } });
    const missing = await create({});
    expect(missing.status).toBe(403);
    expect(((await missing.json()) as { error: string }).error).toContain('x-csrf-token');
    expect((await create({ 'x-csrf-token': 'wrong' })).status).toBe(403);
    expect((await create({ 'x-csrf-token': csrf, origin: 'https://evil.example' })).status).toBe(403);
    const ok = await create({ 'x-csrf-token': csrf, origin: 'http://localhost' });
    expect(ok.status).toBe(200);
    // Another session's token is no good either.
    const other = await session();
    expect((await create({ 'x-csrf-token': other.csrf })).status).toBe(403);
  });

  test('a bearer key still wins over a cookie, and a wrong cookie is 401', async () => {
    expect((await withCookie('/api/v1/api_keys', 'svc_console=forged')).status).toBe(401);
    const res = await t.app.handle(
      new Request(url('/api/v1/api_keys'), { headers: { cookie: 'svc_console=forged', authorization: `Bearer ${t.adminKey}` } }),
    );
    expect(res.status).toBe(200);
  });

  test('an idle session expires (401 everywhere); a used one slides', async () => {
    const { cookie } = await session();
    clock += 20 * 60_000;
    expect((await withCookie('/api/v1/api_keys', cookie)).status).toBe(200);
    clock += 20 * 60_000; // 40 min after sign-in, 20 after its last use
    expect((await withCookie('/api/v1/api_keys', cookie)).status).toBe(200);
    clock += 31 * 60_000;
    const expired = await withCookie('/api/v1/api_keys', cookie);
    expect(expired.status).toBe(401);
    expect(((await expired.json()) as { error: string }).error).toContain('expired');
    expect((await withCookie('/console/session', cookie)).status).toBe(401);
  });

  test('sign-out needs the CSRF token, revokes the session and clears the cookie', async () => {
    const { cookie, csrf } = await session();
    expect((await withCookie('/console/session', cookie, { method: 'DELETE' })).status).toBe(403);
    const out = await withCookie('/console/session', cookie, { method: 'DELETE', headers: { 'x-csrf-token': csrf } });
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toContain('Max-Age=0');
    expect((await withCookie('/api/v1/api_keys', cookie)).status).toBe(401);
  });

  test('a deleted key ends its sessions', async () => {
    const created = await t.request('/api_keys', { method: 'POST', json: { apiKeyType: 'ADMIN', description: 'short-lived admin' } });
    const { apiKey, id } = ((await created.json()) as { data: { apiKey: string; id: string } }).data;
    const res = await signIn(apiKey);
    const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] as string;
    expect((await withCookie('/api/v1/api_keys', cookie)).status).toBe(200);
    expect((await t.request(`/api_keys?id=${id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await withCookie('/api/v1/api_keys', cookie)).status).toBe(401);
  });
});

describe('the page', () => {
  test('is served with a strict CSP and its bundle from svc itself', async () => {
    const res = await t.app.handle(new Request(url('/console')));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await res.text();
    const script = /src="(\/console\/assets\/app\.js\?v=[0-9a-f]+)"/.exec(html)?.[1];
    expect(script).toBeTruthy();
    const js = await t.app.handle(new Request(url(script as string), { headers: { 'accept-encoding': 'br' } }));
    expect(js.status).toBe(200);
    expect(js.headers.get('content-encoding')).toBe('br');
    expect(js.headers.get('content-type')).toContain('javascript');
    expect((await t.app.handle(new Request(url('/console/assets/nope.js')))).status).toBe(404);
  });
});

describe('sign-in failures', () => {
  test('ten failed sign-ins a minute from one address, then 429 even for a good key until the minute ends', async () => {
    clock = Math.ceil(clock / 60_000) * 60_000 + 1_000; // a fresh minute
    for (let i = 0; i < 10; i++) expect((await signIn(`svc_wrong-${i}`)).status).toBe(401);
    const limited = await signIn(t.adminKey);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await limited.json()) as { error: string }).error).toContain('failed console sign-ins');
    clock += 60_000;
    expect((await signIn(t.adminKey)).status).toBe(200);
  });

  test('a public route ignores a stale cookie', async () => {
    expect((await withCookie('/api/v1/models', 'svc_console=stale')).status).toBe(200);
  });
});
