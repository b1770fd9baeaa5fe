import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { createApiKey } from '../../src/auth/api-keys';
import { createAccount } from '../../src/auth/bootstrap';
import { apiKeys, ledgerEntries } from '../../src/db/schema';
import { startTestApp, type TestApp } from '../helpers/app';
import { BACKENDS } from '../helpers/backends';

const DAY = 86_400_000;

describe.each(BACKENDS)('API key management on $name', (backend) => {
  let t: TestApp;
  let clock = Date.now();
  let inferenceKey: string;
  let otherAdmin: string;
  let otherKeyId: string;

  beforeAll(async () => {
    t = await startTestApp({ backend, now: () => clock });
    const db = t.deps.storage.db;
    const [adminRow] = await db.select().from(apiKeys).limit(1);
    inferenceKey = (await createApiKey(db, { accountId: adminRow!.accountId, type: 'INFERENCE' })).secret;
    const other = await createAccount(db, { creditUsd: '5' });
    otherAdmin = (await createApiKey(db, { accountId: other, type: 'ADMIN' })).secret;
    otherKeyId = (await createApiKey(db, { accountId: other, type: 'INFERENCE' })).row.id;
  });
  afterAll(() => t.close());

  const create = (json: unknown, key?: string) => t.request('/api_keys', { method: 'POST', json, key });

  test('POST creates a key and returns its secret once; the list shows it without the secret', async () => {
    const res = await create({
      apiKeyType: 'INFERENCE',
      description: 'ci key',
      consumptionLimit: { usd: 50, diem: 10.5, vcu: null },
      limitPeriod: 'MONTH',
      expiresAt: '2999-01-02',
    });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toEqual({
      success: true,
      data: {
        apiKey: expect.stringMatching(/^svc_[A-Za-z0-9_-]{43}$/),
        apiKeyType: 'INFERENCE',
        consumptionLimit: { usd: 50, diem: 10.5, vcu: null },
        limitPeriod: 'MONTH',
        description: 'ci key',
        expiresAt: '2999-01-02T00:00:00.000Z',
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      },
    });
    const secret: string = body.data.apiKey;
    const [stored] = await t.deps.storage.db.select().from(apiKeys).where(eq(apiKeys.id, body.data.id));
    expect(stored!.limitUsdMicros).toBe(50_000_000);
    expect(stored!.limitDiemMicros).toBe(10_500_000);
    expect(stored!.secretHash).not.toContain(secret);

    const list = await (await t.request('/api_keys')).json();
    expect(list.object).toBe('list');
    expect(JSON.stringify(list)).not.toContain(secret);
    const listed = list.data.find((k: { id: string }) => k.id === body.data.id);
    expect(listed).toEqual({
      id: body.data.id,
      apiKeyType: 'INFERENCE',
      description: 'ci key',
      createdAt: expect.any(String),
      expiresAt: '2999-01-02T00:00:00.000Z',
      lastUsedAt: null,
      last6Chars: secret.slice(-6),
      consumptionLimits: { usd: 50, diem: 10.5, vcu: null },
      limitPeriod: 'MONTH',
      usage: { trailingSevenDays: { usd: '0.0000', vcu: '0.0000', diem: '0.0000' } },
      currentPeriodUsage: { usd: '0.0000', diem: '0.0000' },
    });
    // The new key works, on an inference-level route.
    expect((await t.request('/models', { key: secret })).status).toBe(200);
  });

  test('usage sums the ledger by key: trailing seven days and the current limit period', async () => {
    const key = (
      await (
        await create({ apiKeyType: 'INFERENCE', description: 'metered', consumptionLimit: { usd: 5 }, limitPeriod: 'LIFETIME' })
      ).json()
    ).data;
    const unlimited = (await (await create({ apiKeyType: 'INFERENCE', description: 'unlimited' })).json()).data;
    const [{ accountId }] = (await t.deps.storage.db
      .select({ accountId: apiKeys.accountId })
      .from(apiKeys)
      .where(eq(apiKeys.id, key.id))) as [{ accountId: string }];
    const entry = (
      requestId: string,
      currency: 'USD' | 'DIEM',
      amountMicros: number,
      ageMs: number,
      kind: 'CHARGE' | 'REFUND' = 'CHARGE',
      apiKeyId = key.id,
    ) => ({
      accountId,
      apiKeyId,
      requestId,
      kind,
      currency,
      sku: 'llama-3.3-70b-llm-output',
      amountMicros,
      createdAt: new Date(clock - ageMs),
    });
    await t.deps.storage.db
      .insert(ledgerEntries)
      .values([
        entry('r1', 'USD', -1_234_500, 60_000),
        entry('r2', 'USD', -500_000, 2 * DAY),
        entry('r2', 'USD', 100_000, 2 * DAY, 'REFUND'),
        entry('r3', 'DIEM', -2_000_000, 3 * DAY),
        entry('r4', 'USD', -7_000_000, 10 * DAY),
        entry('r5', 'USD', -9_000_000, 60_000, 'CHARGE', unlimited.id),
      ]);
    const got = (await (await t.request(`/api_keys/${key.id}`)).json()).data;
    expect(got.usage.trailingSevenDays).toEqual({ usd: '1.6345', vcu: '0.0000', diem: '2.0000' });
    expect(got.currentPeriodUsage).toEqual({ usd: '8.6345', diem: '2.0000' });
    const other = (await (await t.request(`/api_keys/${unlimited.id}`)).json()).data;
    expect(other.usage.trailingSevenDays.usd).toBe('9.0000');
    expect(other.currentPeriodUsage).toBeUndefined();
  });

  test('GET /api_keys/{id}: own key; 400 "API key could not be found" for another account or unknown id, 400 for a non-uuid', async () => {
    const own = (await (await create({ apiKeyType: 'ADMIN', description: 'get me' })).json()).data;
    const res = await t.request(`/api_keys/${own.id}`);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(Object.keys(body)).toEqual(['data']);
    expect(body.data).toMatchObject({
      id: own.id,
      apiKeyType: 'ADMIN',
      description: 'get me',
      consumptionLimits: { usd: null, diem: null, vcu: null },
    });
    for (const id of [otherKeyId, '00000000-0000-4000-8000-000000000000']) {
      const res = await t.request(`/api_keys/${id}`);
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        error: 'API key could not be found',
        details: { _errors: [], id: { _errors: ['No live API key of this account has this id'] } },
      });
    }
    const bad = await t.request('/api_keys/not-a-uuid');
    expect(bad.status).toBe(400);
    expect((await bad.json()).details.id._errors.length).toBe(1);
  });

  test('PATCH updates description, limits, period and expiry; "" and null remove the expiry', async () => {
    const key = (await (await create({ apiKeyType: 'INFERENCE', description: 'before', expiresAt: '2999-05-05T10:00:00Z' })).json()).data;
    const patch = (json: unknown) => t.request('/api_keys', { method: 'PATCH', json });
    let res = await patch({
      id: key.id,
      description: 'after',
      consumptionLimit: { usd: 1.25 },
      limitPeriod: 'EPOCH',
      expiresAt: '2998-01-01T00:00:00.000Z',
    });
    expect(res.status).toBe(200);
    let body = await res.json();
    expect(body.success).toBe(true);
    expect(body.data).toMatchObject({
      id: key.id,
      description: 'after',
      consumptionLimits: { usd: 1.25, diem: null, vcu: null },
      limitPeriod: 'EPOCH',
      expiresAt: '2998-01-01T00:00:00.000Z',
    });
    expect(body.data.usage).toBeUndefined();
    body = await (await patch({ id: key.id, expiresAt: '' })).json();
    expect(body.data.expiresAt).toBeNull();
    await patch({ id: key.id, expiresAt: '2998-01-01' });
    body = await (await patch({ id: key.id, expiresAt: null, consumptionLimit: { usd: null } })).json();
    expect(body.data).toMatchObject({ expiresAt: null, consumptionLimits: { usd: null } });
    expect(body.data.description).toBe('after');
  });

  test("PATCH refuses a missing id (400 naming id), a past expiry, and another account's key (400 'API key could not be found', as the reference)", async () => {
    let res = await t.request('/api_keys', { method: 'PATCH', json: { description: 'x' } });
    expect(res.status).toBe(400);
    expect((await res.json()).details.id).toBeDefined();
    const key = (await (await create({ apiKeyType: 'INFERENCE', description: 'p' })).json()).data;
    res = await t.request('/api_keys', { method: 'PATCH', json: { id: key.id, expiresAt: '2001-01-01' } });
    expect(res.status).toBe(400);
    expect((await res.json()).details.expiresAt).toBeDefined();
    res = await t.request('/api_keys', { method: 'PATCH', json: { id: otherKeyId, description: 'mine now' } });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toBe('API key could not be found');
    res = await t.request('/api_keys', { method: 'PATCH', json: { id: 'key-1', description: 'x' } });
    expect(res.status).toBe(400);
    expect((await res.json()).details.id).toBeDefined();
    res = await t.request('/api_keys', { method: 'PATCH', json: { id: key.id, description: '' } });
    expect(res.status).toBe(400);
    expect((await res.json()).details.description).toBeDefined();
  });

  test('PATCH refuses a consumptionLimit that is not an object (400 naming it), as POST does', async () => {
    const { data } = await (await create({ apiKeyType: 'INFERENCE', description: 'mis-typed limit' })).json();
    const res = await t.request('/api_keys', { method: 'PATCH', json: { id: data.id, consumptionLimit: 'not-valid-here' } });
    expect(res.status).toBe(400);
    expect((await res.json()).details.consumptionLimit).toBeDefined();
  });

  test('POST refuses bad input with a DetailedError naming the field', async () => {
    const cases: [unknown, string][] = [
      [{ apiKeyType: 'INFERENCE' }, 'description'],
      [{ apiKeyType: 'INFERENCE', description: 'x'.repeat(65) }, 'description'],
      [{ apiKeyType: 'ROOT', description: 'x' }, 'apiKeyType'],
      [{ description: 'x' }, 'apiKeyType'],
      [{ apiKeyType: 'ADMIN', description: 'x', limitPeriod: 'WEEK' }, 'limitPeriod'],
      [{ apiKeyType: 'ADMIN', description: 'x', expiresAt: '01/02/2030' }, 'expiresAt'],
      [{ apiKeyType: 'ADMIN', description: 'x', expiresAt: '2001-01-01' }, 'expiresAt'],
      [{ apiKeyType: 'ADMIN', description: 'x', consumptionLimit: { usd: -1 } }, 'consumptionLimit'],
      // Elysia's normalizer turned a string into an object of its characters, and no limit was set.
      [{ apiKeyType: 'ADMIN', description: 'x', consumptionLimit: 'not-valid-here' }, 'consumptionLimit'],
    ];
    for (const [json, field] of cases) {
      const res = await create(json);
      expect(res.status).toBe(400);
      const body = await res.json();
      expect(body.details[field]).toBeDefined();
    }
  });

  test('every management route is ADMIN-only: an INFERENCE key gets 403, no key 401', async () => {
    const calls: [string, string, unknown?][] = [
      ['GET', '/api_keys'],
      ['POST', '/api_keys', { apiKeyType: 'ADMIN', description: 'escalate' }],
      ['PATCH', '/api_keys', { id: otherKeyId, description: 'x' }],
      ['DELETE', `/api_keys?id=${otherKeyId}`],
      ['GET', `/api_keys/${otherKeyId}`],
    ];
    for (const [method, path, json] of calls) {
      for (const [key, status] of [
        [inferenceKey, 403],
        [null, 401],
      ] as const) {
        const res = await t.request(path, { method, json, key });
        expect(res.status).toBe(status);
        expect(Object.keys(await res.json())).toEqual(['error']);
      }
    }
  });

  test('DELETE by query or JSON body; 400 naming id when missing or invalid; 400 "API key could not be found" for unknown or foreign keys (the reference)', async () => {
    const a = (await (await create({ apiKeyType: 'INFERENCE', description: 'del a' })).json()).data;
    const b = (await (await create({ apiKeyType: 'INFERENCE', description: 'del b' })).json()).data;
    let res = await t.request(`/api_keys?id=${a.id}`, { method: 'DELETE' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true });
    res = await t.request('/api_keys', { method: 'DELETE', json: { id: b.id } });
    expect(await res.json()).toEqual({ success: true });
    for (const path of ['/api_keys', '/api_keys?id=nope']) {
      res = await t.request(path, { method: 'DELETE' });
      expect(res.status).toBe(400);
      expect((await res.json()).details.id._errors.length).toBe(1);
    }
    for (const id of [a.id, otherKeyId]) {
      res = await t.request(`/api_keys?id=${id}`, { method: 'DELETE' });
      expect(res.status).toBe(400);
      expect((await res.json()).error).toBe('API key could not be found');
    }
    // The other account's own ADMIN key can still see its key: nothing was deleted.
    expect((await t.request(`/api_keys/${otherKeyId}`, { key: otherAdmin })).status).toBe(200);
    const ids = (await (await t.request('/api_keys')).json()).data.map((k: { id: string }) => k.id);
    expect(ids).not.toContain(a.id);
  });

  test('a deleted key gets 401 on its next request; concurrent deletes give one 200 and 400s', async () => {
    const key = (await (await create({ apiKeyType: 'INFERENCE', description: 'doomed' })).json()).data;
    expect((await t.request('/models', { key: key.apiKey })).status).toBe(200);
    const results = await Promise.all(Array.from({ length: 8 }, () => t.request(`/api_keys?id=${key.id}`, { method: 'DELETE' })));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 400, 400, 400, 400, 400, 400, 400]);
    expect((await t.request('/models', { key: key.apiKey })).status).toBe(401);
  });

  test('an expired key is refused; last_used_at is written in batches off the request path', async () => {
    const key = (
      await (
        await create({
          apiKeyType: 'ADMIN',
          description: 'short-lived',
          expiresAt: new Date(clock + DAY).toISOString().replace(/\.\d+Z$/, 'Z'),
        })
      ).json()
    ).data;
    expect((await t.request('/api_keys', { key: key.apiKey })).status).toBe(200);
    const before = await t.deps.storage.db.select({ at: apiKeys.lastUsedAt }).from(apiKeys).where(eq(apiKeys.id, key.id));
    expect(before[0]!.at).toBeNull();
    await t.deps.keys.flushUsage();
    const listed = (await (await t.request(`/api_keys/${key.id}`)).json()).data;
    expect(Date.parse(listed.lastUsedAt)).toBeGreaterThan(clock - 60_000);
    clock += 2 * DAY;
    try {
      const res = await t.request('/api_keys', { key: key.apiKey });
      expect(res.status).toBe(401);
      expect((await res.json()).error).toContain('expired');
    } finally {
      clock -= 2 * DAY;
    }
  });

  test('creation is limited to 20 per minute per account (429)', async () => {
    const db = t.deps.storage.db;
    const account = await createAccount(db);
    const admin = (await createApiKey(db, { accountId: account, type: 'ADMIN' })).secret;
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) statuses.push((await create({ apiKeyType: 'INFERENCE', description: `k${i}` }, admin)).status);
    expect(statuses.slice(0, 20).every((s) => s === 200)).toBe(true);
    expect(statuses[20]).toBe(429);
  });
});
