import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import type { TestApp } from '../helpers/app';
import { BACKENDS } from '../helpers/backends';
import { awayFromMinuteBoundary, chat, limitHeaders, newAccount, startLimitsApp } from './helpers';

const L_MODEL = 'zai-org-glm-4.6';
const M_MODEL = 'llama-3.3-70b';
const XS_MODEL = 'qwen3-4b';

for (const backend of BACKENDS)
  describe(`rate limits over HTTP on ${backend.name}`, () => {
    let t: TestApp;
    // The memory counters follow this clock; Redis uses the real one (every instance must agree on the windows).
    let clock = Date.now();
    const fakeClock = backend.name === 'embedded';
    beforeEach(() => awayFromMinuteBoundary(fakeClock));
    beforeAll(async () => {
      t = await startLimitsApp({ backend, now: fakeClock ? () => clock : undefined });
    });
    afterAll(() => t.close());

    const setLimits = (accountId: string, body: unknown, key = t.adminKey) =>
      t.request(`/admin/accounts/${accountId}/rate_limits`, { method: 'PUT', json: body, key });
    const logOf = async (key: string) =>
      (await (await t.request('/api_keys/rate_limits/log', { key })).json()).data as Record<string, unknown>[];

    test('a burst beyond the tier limit gets 429 with the 8.2 headers and a StandardError', async () => {
      const a = await newAccount(t.deps.storage.db);
      const first = await chat(t, a.inferenceKey, L_MODEL);
      expect(first.status).toBe(200);
      const h = limitHeaders(first);
      expect(h).toMatchObject({
        'x-ratelimit-limit-requests': '20',
        'x-ratelimit-remaining-requests': '19',
        'x-ratelimit-limit-tokens': '500000',
        'x-ratelimit-type': 'user',
      });
      const resetAt = Number(h['x-ratelimit-reset-requests']);
      const nowS = (fakeClock ? clock : Date.now()) / 1000;
      expect(resetAt).toBeGreaterThan(nowS);
      expect(resetAt).toBeLessThanOrEqual(Math.ceil(nowS) + 60);
      expect(resetAt % 60).toBe(0);
      expect(Number(h['x-ratelimit-reset-tokens'])).toBeLessThanOrEqual(60);
      expect(Number(h['x-ratelimit-remaining-tokens'])).toBeLessThan(500_000);

      const rest = await Promise.all(Array.from({ length: 19 }, () => chat(t, a.inferenceKey, L_MODEL)));
      expect(rest.map((r) => r.status)).toEqual(Array(19).fill(200));
      const refused = await chat(t, a.inferenceKey, L_MODEL);
      expect(refused.status).toBe(429);
      const wait = Number(refused.headers.get('retry-after'));
      expect(wait).toBe(Math.max(1, Math.ceil(resetAt - (fakeClock ? clock : Date.now()) / 1000)));
      expect(await refused.json()).toEqual({
        error: `Rate limit exceeded: 20 requests per minute for model ${L_MODEL}; retry in ${wait} s`,
      });
      expect(limitHeaders(refused)).toMatchObject({
        'x-ratelimit-limit-requests': '20',
        'x-ratelimit-remaining-requests': '0',
        'x-ratelimit-reset-requests': String(resetAt),
        'x-ratelimit-type': 'user',
      });
      // Another model of the same account has its own counter.
      expect((await chat(t, a.inferenceKey, M_MODEL)).status).toBe(200);

      const log = await logOf(a.adminKey);
      expect(log).toHaveLength(1);
      expect(log[0]).toMatchObject({ modelId: L_MODEL, rateLimitTier: 'standard', rateLimitType: 'RPM', apiKeyId: expect.any(String) });
      expect(Date.parse(log[0]?.timestamp as string)).not.toBeNaN();
    });

    test('the partner tier gets its higher limits', async () => {
      const p = await newAccount(t.deps.storage.db, 'partner');
      const res = await chat(t, p.inferenceKey, L_MODEL);
      expect(limitHeaders(res)).toMatchObject({ 'x-ratelimit-limit-requests': '60', 'x-ratelimit-limit-tokens': '1000000' });
      const burst = await Promise.all(Array.from({ length: 24 }, () => chat(t, p.inferenceKey, L_MODEL)));
      expect(burst.every((r) => r.status === 200)).toBe(true);
      const body = await (await t.request('/api_keys/rate_limits', { key: p.adminKey })).json();
      expect(body.data.apiTier).toEqual({ id: 'partner', isCharged: true });
      const l = body.data.rateLimits.find((m: { apiModelId: string }) => m.apiModelId === L_MODEL);
      expect(l.rateLimits).toEqual([
        { amount: 60, type: 'RPM' },
        { amount: 1_000_000, type: 'TPM' },
      ]);
    });

    test('tokens are reserved from max_tokens and corrected after settle', async () => {
      const a = await newAccount(t.deps.storage.db);
      expect((await setLimits(a.accountId, { overrides: { models: { [XS_MODEL]: { tpm: 1000 } } } })).status).toBe(200);
      const first = await chat(t, a.inferenceKey, XS_MODEL, { max_tokens: 600 });
      expect(first.status).toBe(200);
      const afterReserve = Number(first.headers.get('x-ratelimit-remaining-tokens'));
      expect(first.headers.get('x-ratelimit-limit-tokens')).toBe('1000');
      expect(afterReserve).toBeLessThanOrEqual(400);
      expect(afterReserve).toBeGreaterThan(300);
      const used = (await first.json()).usage.total_tokens as number;
      expect(used).toBeLessThan(300);

      // Without the correction 2 x 600 would not fit in 1000.
      const second = await chat(t, a.inferenceKey, XS_MODEL, { max_tokens: 600 });
      expect(second.status).toBe(200);
      expect(Number(second.headers.get('x-ratelimit-remaining-tokens'))).toBe(afterReserve - used);

      const tooBig = await chat(t, a.inferenceKey, XS_MODEL, { max_tokens: 990 });
      expect(tooBig.status).toBe(429);
      expect(tooBig.headers.get('x-ratelimit-remaining-requests')).toBe('498');
      // The refusal on tokens took no request slot.
      const next = await chat(t, a.inferenceKey, XS_MODEL, { max_tokens: 10 });
      expect(next.headers.get('x-ratelimit-remaining-requests')).toBe('497');
      expect((await logOf(a.adminKey)).map((e) => e.rateLimitType)).toEqual(['TPM']);
    });

    test('concurrent reservations count before any of them settles', async () => {
      const a = await newAccount(t.deps.storage.db);
      await setLimits(a.accountId, { overrides: { models: { [XS_MODEL]: { tpm: 1000 } } } });
      const both = await Promise.all([
        chat(t, a.inferenceKey, XS_MODEL, { max_tokens: 600 }),
        chat(t, a.inferenceKey, XS_MODEL, { max_tokens: 600 }),
      ]);
      expect(both.map((r) => r.status).sort()).toEqual([200, 429]);
    });

    test.skipIf(!fakeClock)('the window resets at the time the headers announce (injected clock)', async () => {
      const a = await newAccount(t.deps.storage.db);
      await setLimits(a.accountId, { overrides: { models: { [XS_MODEL]: { rpm: 2 } } } });
      clock = Math.floor(clock / 60_000) * 60_000 + 30_000;
      expect((await chat(t, a.inferenceKey, XS_MODEL)).status).toBe(200);
      expect((await chat(t, a.inferenceKey, XS_MODEL)).status).toBe(200);
      const refused = await chat(t, a.inferenceKey, XS_MODEL);
      expect(refused.status).toBe(429);
      const reset = Number(refused.headers.get('x-ratelimit-reset-requests'));
      expect(reset * 1000 - clock).toBe(30_000);
      clock = reset * 1000 - 1;
      expect((await chat(t, a.inferenceKey, XS_MODEL)).status).toBe(429);
      clock = reset * 1000;
      const again = await chat(t, a.inferenceKey, XS_MODEL);
      expect(again.status).toBe(200);
      expect(again.headers.get('x-ratelimit-remaining-requests')).toBe('1');
      expect(again.headers.get('x-ratelimit-reset-tokens')).toBe('60');
    });

    test('200 concurrent requests against a limit of 50: exactly 50 succeed', async () => {
      const a = await newAccount(t.deps.storage.db);
      const started = performance.now();
      const all = await Promise.all(Array.from({ length: 200 }, () => chat(t, a.inferenceKey, M_MODEL)));
      const ms = performance.now() - started;
      expect(all.filter((r) => r.status === 200)).toHaveLength(50);
      expect(all.filter((r) => r.status === 429)).toHaveLength(150);
      if (process.env.SVC_TEST_VERBOSE) console.log(`${backend.name}: 200 concurrent chat requests in ${ms.toFixed(0)} ms`);
    });

    test('refusals are logged newest first, the last 50, at both log paths', async () => {
      const a = await newAccount(t.deps.storage.db);
      await setLimits(a.accountId, { overrides: { image: 0, models: { [XS_MODEL]: { rpm: 0 } } } });
      for (let i = 0; i < 53; i++) expect((await chat(t, a.inferenceKey, XS_MODEL)).status).toBe(429);
      const log = await logOf(a.adminKey);
      expect(log).toHaveLength(50);
      const times = log.map((e) => Date.parse(e.timestamp as string));
      expect([...times].sort((x, y) => y - x)).toEqual(times);
      const alias = await (await t.request('/api_keys/rate_limit_logs', { key: a.adminKey })).json();
      expect(alias).toEqual({ object: 'list', data: log });
      // Another account sees none of them.
      expect(await logOf(t.adminKey)).not.toContainEqual(expect.objectContaining({ apiKeyId: log[0]?.apiKeyId }));
    });
  });
