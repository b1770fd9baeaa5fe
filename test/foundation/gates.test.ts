import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { Elysia } from 'elysia';
import { createApiKey } from '../../src/auth/api-keys';
import { createAccount } from '../../src/auth/bootstrap';
import { authGate } from '../../src/gates/auth';
import { requestIdGate } from '../../src/gates/request-id';
import { errorHandler } from '../../src/http/error-handler';
import { startTestApp, type TestApp } from '../helpers/app';

let t: TestApp;
let inferenceKey: string;
let expiredKey: string;
beforeAll(async () => {
  t = await startTestApp();
  const accountId = await createAccount(t.deps.storage.db);
  inferenceKey = (await createApiKey(t.deps.storage.db, { accountId, type: 'INFERENCE' })).secret;
  expiredKey = (await createApiKey(t.deps.storage.db, { accountId, type: 'ADMIN', expiresAt: new Date(Date.now() - 1000) })).secret;
});
afterAll(() => t.close());

/** A probe app with one route per access level, built from the real gates. */
function probe() {
  const auth = authGate({ keys: t.deps.keys, now: Date.now });
  return new Elysia()
    .use(requestIdGate)
    .use(errorHandler(t.deps.log))
    .use(auth)
    .get('/admin', ({ svc }) => ({ account: svc.caller?.accountId, type: svc.caller?.apiKey?.type }), { authenticate: 'ADMIN' })
    .get('/inference', ({ svc }) => ({ type: svc.caller?.apiKey?.type }), { authenticate: 'INFERENCE' })
    .get('/public', ({ svc }) => ({ caller: svc.caller }), { authenticate: 'OPTIONAL' })
    .get('/open', () => ({ ok: true }));
}

async function call(path: string, key?: string, header?: string) {
  const headers: Record<string, string> = {};
  if (key) headers.authorization = `Bearer ${key}`;
  if (header) headers.authorization = header;
  const res = await probe().handle(new Request(`http://localhost${path}`, { headers }));
  return { status: res.status, body: await res.json() };
}

describe('auth gate', () => {
  test('ADMIN routes take ADMIN keys and refuse INFERENCE keys with 403', async () => {
    expect(await call('/admin', t.adminKey)).toMatchObject({ status: 200, body: { type: 'ADMIN' } });
    const refused = await call('/admin', inferenceKey);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toContain('ADMIN');
  });

  test('INFERENCE routes take either key type', async () => {
    expect((await call('/inference', inferenceKey)).body.type).toBe('INFERENCE');
    expect((await call('/inference', t.adminKey)).body.type).toBe('ADMIN');
  });

  test('missing, malformed, unknown and expired credentials are 401 StandardErrors', async () => {
    for (const res of [
      await call('/inference'),
      await call('/inference', 'svc_unknown'),
      await call('/inference', undefined, 'Basic abc'),
      await call('/inference', expiredKey),
    ]) {
      expect(res.status).toBe(401);
      expect(Object.keys(res.body)).toEqual(['error']);
      expect(JSON.stringify(res.body)).not.toContain('svc_');
    }
    expect((await call('/inference', expiredKey)).body.error).toContain('expired');
  });

  test('OPTIONAL routes serve anonymous callers; routes without the option are untouched', async () => {
    expect(await call('/public')).toEqual({ status: 200, body: { caller: null } });
    expect((await call('/public', 'svc_unknown')).status).toBe(401);
    expect(await call('/open', 'svc_unknown')).toEqual({ status: 200, body: { ok: true } });
  });
});
