import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { CURRENCIES } from '../../src/billing/mirror-init';
import type { BillingStore } from '../../src/billing/store';
import { accounts, apiKeys, balances, ledgerLines } from '../../src/db/schema';
import { BACKENDS } from '../helpers/backends';
import { startUsageApp, type UsageFixture } from './usage-helpers';

for (const backend of BACKENDS)
  describe(`scratch accounts: create, credit, use, delete (${backend.name})`, () => {
    let f: UsageFixture;
    beforeAll(async () => {
      f = await startUsageApp(backend);
    });
    afterAll(() => f.t.close());

    const create = (json: unknown = { scratch: true, displayName: 'scratch test' }, key?: string | null) =>
      f.t.request('/admin/accounts', { method: 'POST', json, key });
    const remove = (accountId: string, key?: string | null) => f.t.request(`/admin/accounts/${accountId}`, { method: 'DELETE', key });
    const rows = async (accountId: string) => {
      const db = f.t.deps.storage.db;
      return {
        accounts: (await db.select().from(accounts).where(eq(accounts.id, accountId))).length,
        keys: (await db.select().from(apiKeys).where(eq(apiKeys.accountId, accountId))).length,
        ledger: (await db.select().from(ledgerLines).where(eq(ledgerLines.accountId, accountId))).length,
        balances: (await db.select().from(balances).where(eq(balances.accountId, accountId))).length,
      };
    };
    const store = () => (f.t.deps.meter as unknown as { store: BillingStore }).store;

    test('a scratch account is credited, used with an INFERENCE key of its own, and deleted with everything it held', async () => {
      const created = await create();
      expect(created.status).toBe(200);
      const { data } = await created.json();
      expect(data).toMatchObject({ kind: 'user', operator: false, scratch: true, displayName: 'scratch test' });
      expect(data.apiKey.apiKey).toMatch(/^svc_/);
      const admin = data.apiKey.apiKey as string;
      expect((await (await f.t.request(`/admin/accounts/${data.id}`)).json()).data).toMatchObject({ scratch: true, balances: { USD: 0 } });

      const credit = await f.t.request(`/admin/accounts/${data.id}/credits`, { method: 'POST', json: { currency: 'USD', amount: '1' } });
      expect((await credit.json()).data).toMatchObject({ applied: true, balance: 1 });
      const key = await f.t.request('/api_keys', { method: 'POST', key: admin, json: { apiKeyType: 'INFERENCE', description: 'scratch' } });
      const inference = (await key.json()).data.apiKey as string;
      const chat = await f.t.request('/chat/completions', {
        method: 'POST',
        key: inference,
        json: { model: 'llama-3.3-70b', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 8 },
      });
      expect(chat.status).toBe(200);
      await chat.text();
      const balance = await (await f.t.request('/billing/balance', { key: admin })).json();
      expect(balance.balances.usd).toBeGreaterThan(0);
      expect(balance.balances.usd).toBeLessThan(1);
      const usage = await (await f.t.request('/billing/usage', { key: admin })).json();
      expect(usage.data.length).toBeGreaterThanOrEqual(1);
      expect(await rows(data.id)).toMatchObject({ accounts: 1, keys: 2 });
      expect((await store().balances(data.id, ['USD']))[0]).not.toBeNull();

      const deleted = await remove(data.id);
      expect(deleted.status).toBe(200);
      const body = await deleted.json();
      expect(body).toMatchObject({ success: true, data: { id: data.id, deleted: { apiKeys: 2, balances: 1 } } });
      // The credit and at least one charge (its row in ledger_charges).
      expect(body.data.deleted.ledgerEntries).toBeGreaterThanOrEqual(2);

      for (const k of [admin, inference]) expect((await f.t.request('/billing/balance', { key: k })).status).toBe(401);
      const again = await f.t.request('/chat/completions', {
        method: 'POST',
        key: inference,
        json: { model: 'llama-3.3-70b', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 8 },
      });
      expect(again.status).toBe(401);
      expect((await f.t.request(`/admin/accounts/${data.id}`)).status).toBe(404);
      expect((await remove(data.id)).status).toBe(404);
      await f.t.deps.meter.flush();
      expect(await rows(data.id)).toEqual({ accounts: 0, keys: 0, ledger: 0, balances: 0 });
      expect(await store().balances(data.id, CURRENCIES)).toEqual(CURRENCIES.map(() => null));
    });

    test('only scratch accounts are deleted: another account is 409 and keeps its keys and ledger', async () => {
      const before = await rows(f.otherAccountId);
      const res = await remove(f.otherAccountId);
      expect(res.status).toBe(409);
      expect((await res.json()).error).toContain('scratch');
      expect(await rows(f.otherAccountId)).toEqual(before);
      expect((await f.t.request('/billing/balance', { key: f.otherAdminKey })).status).toBe(200);
      expect((await remove(f.accountId)).status).toBe(409);
    });

    test('while a request of the account holds balance, deletion is 409 with Retry-After (its keys are already revoked)', async () => {
      const { data } = await (await create()).json();
      await f.t.request(`/admin/accounts/${data.id}/credits`, { method: 'POST', json: { currency: 'USD', amount: '1' } });
      await f.t.request('/billing/balance', { key: data.apiKey.apiKey });
      const now = Date.now();
      const held = await store().reserve({
        accountId: data.id,
        requestId: `scratch-hold-${data.id}`,
        candidates: [{ currency: 'USD', amount: 1000, counter: '', limit: 0 }],
        report: ['USD', 'DIEM'],
        now,
        expiresAt: now + 60_000,
        counterTtlMs: 0,
      });
      expect(held.status).toBe('held');
      const busy = await remove(data.id);
      expect(busy.status).toBe(409);
      expect(busy.headers.get('retry-after')).toBe('1');
      expect((await f.t.request('/billing/balance', { key: data.apiKey.apiKey })).status).toBe(401);
      await store().release(data.id, `scratch-hold-${data.id}`, 60_000);
      expect((await remove(data.id)).status).toBe(200);
      expect(await rows(data.id)).toEqual({ accounts: 0, keys: 0, ledger: 0, balances: 0 });
    });

    test('operator only: no key 401, an INFERENCE key or another account ADMIN key 403', async () => {
      const { data } = await (await create()).json();
      for (const [key, status] of [
        [null, 401],
        ['svc_bad-key', 401],
        [f.inferenceKey, 403],
        [f.otherAdminKey, 403],
        [data.apiKey.apiKey, 403],
      ] as const) {
        expect(`POST ${key} ${(await create(undefined, key)).status}`).toBe(`POST ${key} ${status}`);
        expect(`DELETE ${key} ${(await remove(data.id, key)).status}`).toBe(`DELETE ${key} ${status}`);
      }
      expect((await remove(data.id)).status).toBe(200);
    });

    test('scratch: false makes a lasting account with its ADMIN key, which cannot be deleted', async () => {
      const created = await create({ scratch: false, displayName: 'customer' });
      expect(created.status).toBe(200);
      const { data } = await created.json();
      expect(data).toMatchObject({ kind: 'user', operator: false, scratch: false, displayName: 'customer' });
      const admin = data.apiKey.apiKey as string;
      const own = await (await f.t.request('/api_keys', { key: admin })).json();
      expect(own.data.map((k: { description: string; apiKeyType: string }) => [k.description, k.apiKeyType])).toEqual([
        ['Account ADMIN key', 'ADMIN'],
      ]);
      expect(
        (await f.t.request(`/admin/accounts/${data.id}/credits`, { method: 'POST', json: { currency: 'USD', amount: '2' } })).status,
      ).toBe(200);
      expect((await remove(data.id)).status).toBe(409);
      expect(await rows(data.id)).toMatchObject({ accounts: 1, keys: 1 });
    });

    test('bad input is a 400 naming the field', async () => {
      const cases: [unknown, string][] = [
        [{}, 'scratch'],
        [{ scratch: null }, 'scratch'],
        [{ scratch: 'yes' }, 'scratch'],
        [{ scratch: true, displayName: '' }, 'displayName'],
        [{ scratch: true, displayName: 'x'.repeat(101) }, 'displayName'],
        [{ scratch: true, displayName: 7 }, 'displayName'],
      ];
      for (const [json, field] of cases) {
        const res = await create(json);
        expect(`${JSON.stringify(json)} ${res.status}`).toBe(`${JSON.stringify(json)} 400`);
        expect((await res.json()).error).toContain(field);
      }
      const badId = await remove('not-a-uuid');
      expect(badId.status).toBe(400);
      expect((await badId.json()).error).toContain('accountId');
      expect((await remove('00000000-0000-4000-8000-000000000000')).status).toBe(404);
    });
  });
