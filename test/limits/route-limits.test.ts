import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startTestApp, type TestApp } from '../helpers/app';
import { BACKENDS } from '../helpers/backends';
import { newAccount } from './helpers';

// Routes not bound to a model: the account-wide `rateLimits.apiRpm` limit and the balance
// headers (the real meter and limiter, as createDeps builds them).
describe.each(BACKENDS)('authenticated routes without a model on $name', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ backend, config: { rateLimits: { apiRpm: 4 } } });
  });
  afterAll(() => t.close());

  test('carry the 8.2 request headers of the account limit and the balances before the request', async () => {
    const a = await newAccount(t.deps.storage.db);
    const res = await t.request('/api_keys', { key: a.adminKey });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-limit-requests')).toBe('4');
    expect(res.headers.get('x-ratelimit-remaining-requests')).toBe('3');
    expect(Number(res.headers.get('x-ratelimit-reset-requests'))).toBeGreaterThan(Date.now() / 1000);
    expect(res.headers.get('x-ratelimit-type')).toBe('user');
    expect(res.headers.get('x-ratelimit-limit-tokens')).toBeNull();
    expect(res.headers.get('x-svc-balance-usd')).toBe('10.000000');
    expect(res.headers.get('x-svc-balance-diem')).toBe('0.000000');
  });

  test('model routes use the model limit and leave the account limit alone', async () => {
    const a = await newAccount(t.deps.storage.db);
    const chat = await t.request('/chat/completions', {
      method: 'POST',
      key: a.inferenceKey,
      json: { model: 'llama-3.3-70b', messages: [{ role: 'user', content: 'hi' }], max_tokens: 8 },
    });
    expect(chat.status).toBe(200);
    expect(chat.headers.get('x-ratelimit-limit-requests')).toBe('50');
    expect(chat.headers.get('x-ratelimit-limit-tokens')).toBe('750000');
    const next = await t.request('/billing/balance', { key: a.adminKey });
    expect(next.headers.get('x-ratelimit-remaining-requests')).toBe('3');
  });

  test('over the account limit: 429 with the headers, logged as endpoint RPM; anonymous routes carry none', async () => {
    const a = await newAccount(t.deps.storage.db);
    for (let i = 0; i < 4; i++) expect((await t.request('/billing/balance', { key: a.adminKey })).status).toBe(200);
    const refused = await t.request('/billing/balance', { key: a.adminKey });
    expect(refused.status).toBe(429);
    const wait = Number(refused.headers.get('retry-after'));
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(60);
    expect(await refused.json()).toEqual({ error: `Rate limit exceeded: 4 requests per minute; retry in ${wait} s` });
    expect(refused.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    expect(Number(refused.headers.get('x-ratelimit-reset-requests'))).toBeGreaterThan(Date.now() / 1000);
    await t.deps.limits.log.flush();
    const log = await t.deps.limits.refusals(a.accountId, 5);
    expect(log[0]).toMatchObject({ modelId: 'endpoint:api/v1/billing/balance', rateLimitType: 'RPM' });

    const anonymous = await t.request('/models', { key: null });
    expect(anonymous.status).toBe(200);
    expect(anonymous.headers.get('x-ratelimit-limit-requests')).toBeNull();
    expect(anonymous.headers.get('x-svc-balance-usd')).toBeNull();
  });
});
