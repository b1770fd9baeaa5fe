import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startTestApp, type TestApp } from '../helpers/app';
import { BACKENDS } from '../helpers/backends';
import { call, entriesOf, newCaller, rpc, usdOf } from './helpers';

for (const backend of BACKENDS) {
  describe(`crypto RPC limits on ${backend.name}`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({ backend, config: { rpc: { requestsPerMinute: 3, dailyCreditCap: 100 } } });
    });
    afterAll(() => t.close());

    test('over the per-minute limit: 429 with X-RateLimit-Limit, -Remaining and -Reset; a batch is one request; nothing charged', async () => {
      const { accountId, key } = await newCaller(t);
      const first = await rpc(t, 'svc-sim-mainnet', [call(1, 'eth_chainId'), call(2, 'eth_chainId')], { key });
      expect(first.status).toBe(200);
      expect(first.headers.get('x-ratelimit-limit-requests')).toBe('3');
      expect(first.headers.get('x-ratelimit-remaining-requests')).toBe('2');
      // The reference sets X-RateLimit-* on the 429 only.
      expect(first.headers.get('x-ratelimit-limit')).toBeNull();
      for (let i = 0; i < 2; i++) expect((await rpc(t, 'svc-sim-mainnet', call(i, 'eth_chainId'), { key })).status).toBe(200);
      const balance = await usdOf(t, accountId);
      const refused = await rpc(t, 'svc-sim-mainnet', call(9, 'eth_chainId'), { key });
      expect(refused.status).toBe(429);
      expect((await refused.json()).error).toContain('Rate limit exceeded');
      expect(refused.headers.get('x-ratelimit-limit')).toBe('3');
      expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
      const reset = Number(refused.headers.get('x-ratelimit-reset'));
      expect(reset * 1000).toBeGreaterThan(Date.now() - 1000);
      expect(reset * 1000).toBeLessThanOrEqual(Date.now() + 61_000);
      expect(await usdOf(t, accountId)).toBe(balance);
      expect(await entriesOf(t, accountId)).toHaveLength(3);
      // The RPC limit is its own: the account's other routes are not counted against it.
      expect((await t.request('/billing/balance', { key })).status).not.toBe(429);
    });

    test('the daily credit cap: a request that would pass it is a 429 naming the cap, and nothing is charged', async () => {
      const { accountId, key } = await newCaller(t);
      // 4 calls × 20 = 80 of the 100 credits.
      const ok = await rpc(
        t,
        'svc-sim-mainnet',
        [1, 2, 3, 4].map((i) => call(i, 'eth_chainId')),
        { key },
      );
      expect(ok.status).toBe(200);
      const balance = await usdOf(t, accountId);
      const over = await rpc(t, 'svc-sim-mainnet', [call(5, 'eth_chainId'), call(6, 'eth_chainId')], { key });
      expect(over.status).toBe(429);
      expect((await over.json()).error).toContain('daily cap of 100 RPC credits');
      expect(over.headers.get('x-ratelimit-limit')).toBe('100');
      expect(over.headers.get('x-ratelimit-remaining')).toBe('20');
      expect(await usdOf(t, accountId)).toBe(balance);
      // What is left still serves: one more call of 20.
      expect((await rpc(t, 'svc-sim-mainnet', call(7, 'eth_chainId'), { key })).status).toBe(200);
    });

    test('an errored call gives back the credits it did not use to the daily cap', async () => {
      const { key } = await newCaller(t);
      // trace_block (2×) reserves 40 but the simulator answers it with an error: 5 are kept.
      for (let i = 0; i < 2; i++) {
        const res = await rpc(t, 'svc-sim-mainnet', call(i, 'trace_block', ['latest']), { key });
        expect(res.headers.get('x-svc-rpc-credits')).toBe('5');
      }
      // 10 used: 80 more fit.
      expect(
        (
          await rpc(
            t,
            'svc-sim-mainnet',
            [1, 2, 3, 4].map((i) => call(i, 'eth_chainId')),
            { key },
          )
        ).status,
      ).toBe(200);
    });
  });
}
