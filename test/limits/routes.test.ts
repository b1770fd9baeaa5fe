import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { randomUUID } from 'node:crypto';
import type { TestApp } from '../helpers/app';
import { BACKENDS } from '../helpers/backends';
import { newAccount, startLimitsApp } from './helpers';

for (const backend of BACKENDS)
  describe(`rate-limit endpoints on ${backend.name}`, () => {
    let t: TestApp;
    let a: Awaited<ReturnType<typeof newAccount>>;
    beforeAll(async () => {
      t = await startLimitsApp({ backend });
      a = await newAccount(t.deps.storage.db);
    });
    afterAll(() => t.close());

    const put = (accountId: string, json: unknown, key: string | null = t.adminKey) =>
      t.request(`/admin/accounts/${accountId}/rate_limits`, { method: 'PUT', json, key });

    test('GET /api_keys/rate_limits: the limits in force for every model (ADMIN keys)', async () => {
      const res = await t.request('/api_keys/rate_limits', { key: a.adminKey });
      expect(res.status).toBe(200);
      const { data } = await res.json();
      expect(Object.keys(data).sort()).toEqual([
        'accessPermitted',
        'apiTier',
        'balances',
        'keyExpiration',
        'nextEpochBegins',
        'rateLimits',
      ]);
      expect(data).toMatchObject({
        accessPermitted: true,
        apiTier: { id: 'standard', isCharged: true },
        balances: {},
        keyExpiration: null,
      });
      const midnight = new Date();
      midnight.setUTCHours(24, 0, 0, 0);
      expect(data.nextEpochBegins).toBe(midnight.toISOString());
      expect(data.rateLimits.map((m: { apiModelId: string }) => m.apiModelId).sort()).toEqual(
        t.deps.models
          .list()
          .map((m) => m.id)
          .sort(),
      );
      const byId = Object.fromEntries(
        data.rateLimits.map((m: { apiModelId: string; rateLimits: unknown }) => [m.apiModelId, m.rateLimits]),
      );
      expect(byId['qwen3-4b']).toEqual([
        { amount: 500, type: 'RPM' },
        { amount: 1_000_000, type: 'TPM' },
      ]);
      expect(byId['llama-3.3-70b']).toEqual([
        { amount: 50, type: 'RPM' },
        { amount: 750_000, type: 'TPM' },
      ]);
      expect(byId['text-embedding-bge-m3']).toEqual([{ amount: 500, type: 'RPM' }]);
    });

    test('balances come from the meter, in whole units', async () => {
      const meter = t.deps.meter;
      t.deps.meter = { ...meter, balances: async () => ({ USD: 12_345_678, DIEM: 500_000 }) };
      try {
        const { data } = await (await t.request('/api_keys/rate_limits', { key: a.adminKey })).json();
        expect(data.balances).toEqual({ USD: 12.345678, DIEM: 0.5 });
      } finally {
        t.deps.meter = meter;
      }
    });

    test('an operator override is in force at once and shows in the limits', async () => {
      const res = await put(a.accountId, {
        tier: 'partner',
        overrides: { text: { XS: { rpm: 7 } }, models: { 'llama-3.3-70b': { tpm: 123 } } },
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        success: true,
        data: {
          accountId: a.accountId,
          tier: 'partner',
          overrides: { text: { XS: { rpm: 7 } }, models: { 'llama-3.3-70b': { tpm: 123 } } },
        },
      });
      const { data } = await (await t.request('/api_keys/rate_limits', { key: a.adminKey })).json();
      const byId = Object.fromEntries(
        data.rateLimits.map((m: { apiModelId: string; rateLimits: unknown }) => [m.apiModelId, m.rateLimits]),
      );
      expect(data.apiTier.id).toBe('partner');
      expect(byId['qwen3-4b']).toEqual([
        { amount: 7, type: 'RPM' },
        { amount: 2_000_000, type: 'TPM' },
      ]);
      expect(byId['llama-3.3-70b']).toEqual([
        { amount: 100, type: 'RPM' },
        { amount: 123, type: 'TPM' },
      ]);
      // Tier alone keeps the overrides; null clears them.
      expect((await (await put(a.accountId, { tier: 'standard' })).json()).data.overrides).not.toBeNull();
      const cleared = await (await put(a.accountId, { overrides: null })).json();
      expect(cleared.data).toEqual({ accountId: a.accountId, tier: 'standard', overrides: null });
    });

    test('400 names each bad field of the override body', async () => {
      const cases: [unknown, string[]][] = [
        [{ tier: 'gold' }, ['tier']],
        [{ overrides: { imgae: 5 } }, ['overrides.imgae']],
        [{ overrides: { image: -1, text: { XS: { rpm: 1.5 } } } }, ['overrides.image', 'overrides.text.XS.rpm']],
        [{ overrides: { models: { 'no-such-model': { rpm: 1 } } } }, ['overrides.models.no-such-model']],
        [{ tier: 'partner', extra: true }, ['extra']],
        [[1], ['body']],
      ];
      for (const [body, fields] of cases) {
        const res = await put(a.accountId, body);
        expect(res.status).toBe(400);
        const err = await res.json();
        for (const field of fields) {
          let node = err.details;
          for (const part of field.split('.')) node = node?.[part];
          expect(node?._errors?.length, `${JSON.stringify(body)} -> ${field}`).toBeGreaterThan(0);
        }
        expect(err.error).toContain(fields[0]);
      }
    });

    test('404 for an unknown account', async () => {
      expect((await put(randomUUID(), { tier: 'partner' })).status).toBe(404);
      expect((await put('not-a-uuid', { tier: 'partner' })).status).toBe(404);
      expect(await (await put(randomUUID(), {})).json()).toEqual({ error: 'Account not found' });
    });

    test('401 without a key, 403 for keys without the access the route needs', async () => {
      for (const path of ['/api_keys/rate_limits', '/api_keys/rate_limits/log', '/api_keys/rate_limit_logs'])
        expect((await t.request(path, { key: null })).status).toBe(401);
      expect((await t.request('/api_keys/rate_limits', { key: 'svc_not-a-key' })).status).toBe(401);
      for (const path of ['/api_keys/rate_limits', '/api_keys/rate_limits/log', '/api_keys/rate_limit_logs']) {
        const res = await t.request(path, { key: a.inferenceKey });
        expect(res.status).toBe(403);
        expect(Object.keys(await res.json())).toEqual(['error']);
      }
      expect((await put(a.accountId, { tier: 'partner' }, null)).status).toBe(401);
      expect((await put(a.accountId, { tier: 'partner' }, a.inferenceKey)).status).toBe(403);
      // An ADMIN key of an ordinary account cannot change its own limits.
      expect((await put(a.accountId, { tier: 'partner' }, a.adminKey)).status).toBe(403);
    });

    test('the static paths are not taken by GET /api_keys/{id}', async () => {
      const log = await t.request('/api_keys/rate_limits/log', { key: a.adminKey });
      expect(await log.json()).toEqual({ object: 'list', data: [] });
      const limits = await (await t.request('/api_keys/rate_limits', { key: a.adminKey })).json();
      expect(limits.data.rateLimits.length).toBeGreaterThan(0);
    });

    test('the OpenAPI document lists the operations', async () => {
      const doc = await (await t.request('/openapi.json', { key: null })).json();
      expect(doc.paths['/api_keys/rate_limits'].get.operationId).toBe('getApiKeyRateLimits');
      expect(doc.paths['/api_keys/rate_limits/log'].get.operationId).toBe('getApiKeyRateLimitLogs');
      expect(doc.paths['/api_keys/rate_limit_logs'].get).toBeDefined();
      const put = doc.paths['/admin/accounts/{accountId}/rate_limits'].put;
      expect(put.operationId).toBe('putAccountRateLimits');
      expect(put.requestBody.content['application/json'].schema.properties.overrides).toBeDefined();
      expect(doc.paths['/api_keys/rate_limits'].get.responses['200']).toBeDefined();
    });
  });
