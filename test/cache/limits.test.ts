import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { BACKENDS } from '../helpers/backends';
import { startCacheWorld, type CacheWorld } from './world';

const TPM = 120;

/**
 * A world whose account has a TPM limit of TPM on fix-plain; `countCachedTokens` as given.
 * `settleBatchMs` (Redis only) holds settlements back that long: a hit's token correction is
 * then still on its way when the next request is admitted.
 */
async function limitedWorld(backend: (typeof BACKENDS)[number], countCachedTokens: boolean, settleBatchMs?: number) {
  const w = await startCacheWorld(backend, { countCachedTokens }, settleBatchMs === undefined ? {} : { billing: { settleBatchMs } });
  const { accountId, key } = await w.account();
  const res = await fetch(`${w.base}/admin/accounts/${accountId}/rate_limits`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${w.t.adminKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ overrides: { models: { 'fix-plain': { tpm: TPM } } } }),
  });
  expect(res.status).toBe(200);
  const ask = () => w.chat('tpm', { svc_parameters: { cache: 'use' }, max_tokens: 8 }, { key });
  return { w, ask };
}

for (const backend of BACKENDS)
  describe(`response cache and token rate limits, ${backend.name}`, () => {
    let counted: Awaited<ReturnType<typeof limitedWorld>>;
    let free: Awaited<ReturnType<typeof limitedWorld>>;
    beforeAll(async () => {
      counted = await limitedWorld(backend, true);
      // Every hit's estimate is refunded by its settlement; with settlements held back 1 s, the
      // admissions that follow must not be refused for tokens this instance already gave back.
      free = await limitedWorld(backend, false, 1000);
    }, 60_000);
    afterAll(async () => {
      await counted?.w.close();
      await free?.w.close();
    });

    test('a hit counts its cached usage against TPM (countCachedTokens default): enough hits get 429', async () => {
      const first = await counted.ask();
      expect(first.headers.get('x-ratelimit-limit-tokens')).toBe(String(TPM));
      const used = ((await first.json()) as { usage: { total_tokens: number } }).usage.total_tokens;
      expect(used).toBeGreaterThan(0);
      const statuses: number[] = [];
      const remaining: number[] = [];
      for (let i = 0; i < 20 && !statuses.includes(429); i++) {
        const res = await counted.ask();
        statuses.push(res.status);
        if (res.status === 200) {
          expect(res.headers.get('x-svc-cache')).toBe('HIT');
          expect(((await res.json()) as { usage: { cached?: boolean } }).usage.cached).toBe(true);
          remaining.push(Number(res.headers.get('x-ratelimit-remaining-tokens')));
        } else await res.text();
      }
      expect(statuses.at(-1)).toBe(429);
      // Each hit took the original answer's tokens out of the window.
      for (let i = 1; i < remaining.length; i++) expect(remaining[i - 1]! - remaining[i]!).toBe(used);
      expect(counted.w.calls()).toBe(1);
    });

    test('countCachedTokens: false: hits count no tokens, so the same number of requests all pass', async () => {
      const first = await free.ask();
      expect(first.status).toBe(200);
      const remaining: number[] = [];
      for (let i = 0; i < 20; i++) {
        const res = await free.ask();
        expect(res.status).toBe(200);
        expect(res.headers.get('x-svc-cache')).toBe('HIT');
        remaining.push(Number(res.headers.get('x-ratelimit-remaining-tokens')));
        await res.text();
      }
      expect(new Set(remaining).size).toBe(1);
      expect(free.w.calls()).toBe(1);
    });
  });
