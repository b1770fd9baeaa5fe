import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { BACKENDS } from '../helpers/backends';
import { startUsageApp, type UsageFixture } from './usage-helpers';

for (const backend of BACKENDS)
  describe(`operator credits and balance (${backend.name})`, () => {
    let f: UsageFixture;
    beforeAll(async () => {
      f = await startUsageApp(backend);
    });
    afterAll(() => f.t.close());

    const credit = (accountId: string, json: unknown, key?: string) =>
      f.t.request(`/admin/accounts/${accountId}/credits`, { method: 'POST', json, key });
    const balance = (key?: string | null) => f.t.request('/billing/balance', { key });

    test('GET /billing/balance: USD pays while there is no DIEM; ADMIN keys only', async () => {
      for (const key of [undefined]) {
        const res = await balance(key);
        expect(res.status).toBe(200);
        expect(await res.json()).toEqual({
          canConsume: true,
          consumptionCurrency: 'USD',
          balances: { diem: 0, usd: 100 },
          diemEpochAllocation: 0,
        });
      }
      expect((await balance(f.inferenceKey)).status).toBe(403);
      expect((await balance(null)).status).toBe(401);
      expect((await balance('bad-key')).status).toBe(401);
    });

    test('an operator credit is applied once per idempotency key and shows in the balance', async () => {
      const body = { currency: 'DIEM', amount: '12.50', notes: 'promo', idempotencyKey: 'promo-1' };
      const first = await credit(f.otherAccountId, body);
      expect(first.status).toBe(200);
      expect(await first.json()).toEqual({
        success: true,
        data: { accountId: f.otherAccountId, currency: 'DIEM', amount: 12.5, applied: true, balance: 12.5 },
      });
      const again = await (await credit(f.otherAccountId, body)).json();
      expect(again.data).toMatchObject({ applied: false, balance: 12.5 });
      const usd = await (await credit(f.otherAccountId, { currency: 'USD', amount: 0.000001 })).json();
      expect(usd.data).toMatchObject({ applied: true, amount: 0.000001, balance: 5.000001 });
      const res = await balance(f.otherAdminKey);
      expect(await res.json()).toEqual({
        canConsume: true,
        consumptionCurrency: 'DIEM',
        balances: { diem: 12.5, usd: 5.000001 },
        diemEpochAllocation: 0,
      });
      const account = await (await f.t.request(`/admin/accounts/${f.otherAccountId}`)).json();
      expect(account.data).toMatchObject({
        id: f.otherAccountId,
        kind: 'user',
        tier: 'standard',
        operator: false,
        balances: { USD: 5.000001, DIEM: 12.5 },
      });
    });

    test('bad inputs name the field; unknown account 404', async () => {
      const cases: [unknown, string][] = [
        [{ currency: 'EUR', amount: '1' }, 'currency'],
        [{ currency: 'USD' }, 'amount'],
        [{ currency: 'USD', amount: '0' }, 'amount'],
        [{ currency: 'USD', amount: '-1' }, 'amount'],
        [{ currency: 'USD', amount: '1.0000001' }, 'amount'],
        [{ currency: 'USD', amount: 1e-7 }, 'amount'],
        [{ currency: 'USD', amount: 'ten' }, 'amount'],
        [{ currency: 'USD', amount: '1', idempotencyKey: '' }, 'idempotencyKey'],
      ];
      for (const [body, name] of cases) {
        const res = await credit(f.otherAccountId, body);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(JSON.stringify((await res.json()).details), JSON.stringify(body)).toContain(name);
      }
      const badId = await credit('not-a-uuid', { currency: 'USD', amount: '1' });
      expect(badId.status).toBe(400);
      expect((await badId.json()).details.accountId).toBeDefined();
      expect((await credit('00000000-0000-4000-8000-000000000000', { currency: 'USD', amount: '1' })).status).toBe(404);
      expect((await f.t.request('/admin/accounts/00000000-0000-4000-8000-000000000000')).status).toBe(404);
      const badGet = await f.t.request('/admin/accounts/not-a-uuid');
      expect(badGet.status).toBe(400);
      expect((await badGet.json()).details.accountId).toBeDefined();
    });

    test('only ADMIN keys of the operator account: 403 for INFERENCE keys and other accounts, 401 for bad keys', async () => {
      for (const [key, status] of [
        [f.inferenceKey, 403],
        [f.otherAdminKey, 403],
        ['bad-key', 401],
      ] as const) {
        expect((await credit(f.otherAccountId, { currency: 'USD', amount: '1' }, key)).status).toBe(status);
        expect((await f.t.request(`/admin/accounts/${f.otherAccountId}`, { key })).status).toBe(status);
      }
      expect((await credit(f.otherAccountId, { currency: 'USD', amount: '1' }, null as never)).status).toBe(401);
    });
  });
