import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { rateLimitLogs } from '../../src/db/schema';
import { fixtureModel, fixtureProvider } from '../chat/helpers';
import { startUpstream, type FixtureUpstream } from '../fixtures/openai-upstream';
import { startTestApp, type TestApp } from '../helpers/app';
import { BACKENDS } from '../helpers/backends';

// The console's own JSON (/console/api/*) over HTTP: who may read what, bad input, and the
// figures after real traffic through a fixture upstream.
let t: TestApp;
let upstream: FixtureUpstream;
let customerKey = '';
let customerId = '';
let inferenceKey = '';

const get = (path: string, key: string) =>
  t.app.handle(new Request(`http://localhost${path}`, { headers: { authorization: `Bearer ${key}` } }));
const json = async <T>(res: Response) => (await res.json()) as T;
type SeriesBody = { data: { buckets: number[]; series: { name: string; values: Record<string, number[]> }[] } };
const total = (body: SeriesBody, name: string, field: string) =>
  (body.data.series.find((s) => s.name === name)?.values[field] ?? []).reduce((a, b) => a + b, 0);

beforeAll(async () => {
  upstream = startUpstream('a', { tokens: ['Hi', ' there'] });
  t = await startTestApp({
    backend: BACKENDS.at(-1),
    config: { providers: [fixtureProvider('up-a', upstream.url)], models: [fixtureModel('fix-chat', ['up-a'])] },
  });
  const scratch = await t.request('/admin/accounts', { method: 'POST', json: { scratch: true, displayName: 'customer' } });
  const made = await json<{ data: { id: string; apiKey: { apiKey: string } } }>(scratch);
  customerKey = made.data.apiKey.apiKey;
  customerId = made.data.id;
  const key = await t.request('/api_keys', { method: 'POST', json: { apiKeyType: 'INFERENCE', description: 'inference' } });
  inferenceKey = (await json<{ data: { apiKey: string } }>(key)).data.apiKey;
  for (let i = 0; i < 2; i++) {
    const res = await t.request('/chat/completions', {
      method: 'POST',
      json: { model: 'fix-chat', messages: [{ role: 'user', content: 'Hi' }] },
    });
    expect(res.status).toBe(200);
  }
}, 30_000);
afterAll(async () => {
  await t.close();
  await upstream.close();
});

describe('access', () => {
  test('no credential is 401, an INFERENCE key 403; operator pages refuse another account with 403', async () => {
    expect((await t.app.handle(new Request('http://localhost/console/api/usage-series'))).status).toBe(401);
    expect((await get('/console/api/usage-series', inferenceKey)).status).toBe(403);
    expect((await get('/console/api/live', customerKey)).status).toBe(403);
    expect((await get('/console/api/accounts', customerKey)).status).toBe(403);
    expect((await get('/console/api/usage-series', customerKey)).status).toBe(200);
    expect((await get('/console/api/replicas', customerKey)).status).toBe(200);
  });

  test('a window the console does not offer is 400 naming `window`', async () => {
    const res = await get('/console/api/usage-series?window=1y', t.adminKey);
    expect(res.status).toBe(400);
    expect((await json<{ error: string }>(res)).error).toContain('window');
  });
});

describe('figures', () => {
  test('usage series count the two chats by model and by key, and none for another account', async () => {
    const byModel = await json<SeriesBody>(await get('/console/api/usage-series?window=24h&by=model', t.adminKey));
    expect(byModel.data.buckets).toHaveLength(24);
    expect(total(byModel, 'fix-chat', 'requests')).toBe(2);
    expect(total(byModel, 'fix-chat', 'tokens')).toBeGreaterThan(0);
    expect(total(byModel, 'fix-chat', 'spend')).toBeGreaterThan(0);
    // The newest bucket holds them (the hour now).
    expect(byModel.data.series[0]?.values.requests?.at(-1)).toBe(2);
    const byKey = await json<SeriesBody>(await get('/console/api/usage-series?window=7d&by=key', t.adminKey));
    expect(byKey.data.buckets).toHaveLength(7);
    expect(byKey.data.series.map((s) => total(byKey, s.name, 'requests'))).toEqual([2]);
    const other = await json<SeriesBody>(await get('/console/api/usage-series', customerKey));
    expect(other.data.series).toEqual([]);
  });

  test('ledger lines (GET /billing/usage) name their request, key and model: a chat is several SKUs of one request', async () => {
    const keys = await json<{ data: { id: string; description: string }[] }>(await t.request('/api_keys'));
    const admin = keys.data.find((k) => k.description === 'Bootstrap admin key')?.id;
    expect(admin).toBeString();
    type Line = {
      sku: string;
      requestId: string;
      apiKeyId: string | null;
      modelId: string | null;
      inferenceDetails: { requestId: string };
    };
    const lines = (await json<{ data: Line[] }>(await t.request('/billing/usage'))).data;
    const byRequest = Map.groupBy(lines, (l) => l.requestId);
    // The two chats of beforeAll, each billed as input and output tokens.
    expect([...byRequest.values()].map((group) => group.length)).toEqual([2, 2]);
    for (const l of lines) {
      expect(l.requestId).toBe(l.inferenceDetails.requestId);
      expect([l.apiKeyId, l.modelId]).toEqual([admin as string, 'fix-chat']);
    }
  });

  test('refusals per type: every account for the operator, its own for another account', async () => {
    // Seeded straight into the log: refusing real requests needs limits this suite does not test.
    await t.deps.storage.db.insert(rateLimitLogs).values([
      { accountId: customerId, modelId: 'fix-chat', tier: 'standard', type: 'RPM' },
      { accountId: customerId, modelId: 'fix-chat', tier: 'standard', type: 'RPM' },
      { accountId: '00000000-0000-4000-8000-000000000001', modelId: 'fix-chat', tier: 'standard', type: 'ABUSE_BLOCK' },
    ]);
    const all = await json<SeriesBody>(await get('/console/api/refusals?window=24h', t.adminKey));
    expect(total(all, 'RPM', 'refused')).toBe(2);
    expect(total(all, 'ABUSE_BLOCK', 'refused')).toBe(1);
    const own = await json<SeriesBody>(await get('/console/api/refusals?window=24h', customerKey));
    expect(own.data.series.map((s) => s.name)).toEqual(['RPM']);
  });

  test('accounts carry balances and overrides; replicas their routing and health', async () => {
    const accounts = await json<{ data: { id: string; balances: Record<string, number>; rateLimitOverrides: unknown }[] }>(
      await get('/console/api/accounts', t.adminKey),
    );
    expect(accounts.data.map((a) => a.id)).toContain(customerId);
    expect(accounts.data.find((a) => a.id === customerId)?.rateLimitOverrides).toBeNull();
    const replicas = await json<{
      data: { models: Record<string, { provider: string }[]>; providers: Record<string, { health: string }> };
    }>(await get('/console/api/replicas', t.adminKey));
    expect(replicas.data.models['fix-chat']?.map((r) => r.provider)).toEqual(['up-a']);
    expect(replicas.data.providers['up-a']?.health).toBe('ok');
  });
});

describe("another account's usage (the Usage page's account picker)", () => {
  const chatAs = (key: string) =>
    t.request('/chat/completions', {
      method: 'POST',
      key,
      json: { model: 'fix-chat', messages: [{ role: 'user', content: 'Hi' }] },
    });
  type EntryList = { data: { inferenceDetails: { requestId: string } | null }[] };
  const requestIds = async (res: Response) => (await json<EntryList>(res)).data.map((e) => e.inferenceDetails?.requestId);

  test('the operator reads the customer account: its ledger lines (JSON and CSV) and series, apart from its own', async () => {
    // A scratch account starts without credit.
    const credit = await t.request(`/admin/accounts/${customerId}/credits`, { method: 'POST', json: { currency: 'USD', amount: 1 } });
    expect(credit.status).toBe(200);
    const chat = await chatAs(customerKey);
    expect(chat.status).toBe(200);
    const requestId = chat.headers.get('cf-ray') as string;
    expect(await requestIds(await get(`/api/v1/billing/usage?accountId=${customerId}`, t.adminKey))).toContain(requestId);
    expect(await requestIds(await get('/api/v1/billing/usage', t.adminKey))).not.toContain(requestId);
    const csv = await t.app.handle(
      new Request(`http://localhost/api/v1/billing/usage?accountId=${customerId}`, {
        headers: { authorization: `Bearer ${t.adminKey}`, accept: 'text/csv' },
      }),
    );
    expect(await csv.text()).toContain(requestId);
    const series = await json<SeriesBody>(await get(`/console/api/usage-series?accountId=${customerId}`, t.adminKey));
    expect(total(series, 'fix-chat', 'requests')).toBe(1);
  });

  test("another account's ADMIN key naming the operator's account gets 403; a bad id 400 naming accountId", async () => {
    const listed = await json<{ data: { id: string }[] }>(await t.request('/admin/accounts'));
    const operatorId = listed.data.map((a) => a.id).find((id) => id !== customerId);
    expect(operatorId).toBeDefined();
    for (const path of [`/api/v1/billing/usage?accountId=${operatorId}`, `/console/api/usage-series?accountId=${operatorId}`]) {
      const res = await get(path, customerKey);
      expect(res.status, path).toBe(403);
      expect((await json<{ error: string }>(res)).error).toContain("another account's usage");
    }
    // Its own id is its own usage.
    expect((await get(`/api/v1/billing/usage?accountId=${customerId}`, customerKey)).status).toBe(200);
    const bad = await get('/api/v1/billing/usage?accountId=nope', t.adminKey);
    expect(bad.status).toBe(400);
    expect((await json<{ error: string }>(bad)).error).toContain('accountId');
  });
});

describe('key usage in micro-units (the key bars)', () => {
  test('each key of the account with its exact spend, where GET /api_keys rounds to 4 decimals', async () => {
    const exact = await json<{ data: { id: string; trailingSevenDaysMicros: { usd: number } }[] }>(
      await get('/console/api/key-usage', t.adminKey),
    );
    const spent = exact.data.reduce((n, k) => n + k.trailingSevenDaysMicros.usd, 0);
    expect(spent).toBeGreaterThan(0);
    const keys = await json<{ data: { id: string; usage: { trailingSevenDays: { usd: string } } }[] }>(
      await get('/api/v1/api_keys', t.adminKey),
    );
    // The public list cuts each figure to 4 decimals; the exact one is its micro-units.
    for (const k of keys.data) {
      const micros = exact.data.find((e) => e.id === k.id)?.trailingSevenDaysMicros.usd ?? 0;
      expect(Number(k.usage.trailingSevenDays.usd)).toBe(Math.trunc(micros / 100) / 10_000);
    }
    expect(exact.data.map((k) => k.id).sort()).toEqual(keys.data.map((k) => k.id).sort());
    expect((await get('/console/api/key-usage', inferenceKey)).status).toBe(403);
  });
});
