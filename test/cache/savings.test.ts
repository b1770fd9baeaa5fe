import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { BACKENDS } from '../helpers/backends';
import { startCacheWorld, type CacheWorld } from './world';

for (const backend of BACKENDS)
  describe(`GET /console/api/cache-savings (the console's Usage page), ${backend.name}`, () => {
    let w: CacheWorld;
    beforeAll(async () => {
      w = await startCacheWorld(backend, { price: { fraction: 0.5 } });
    }, 60_000);
    afterAll(() => w?.close());
    // The console's API is served beside the public one, not under its base path.
    const origin = () => new URL(w.base).origin;

    const savings = async (key: string, query = 'window=24h') => {
      const res = await fetch(`${w.base.replace(/\/api\/v1$/, '')}/console/api/cache-savings?${query}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(res.status).toBe(200);
      return ((await res.json()) as { data: Record<string, unknown>[] }).data;
    };

    test('per model: requests, hits, hit rate, what the hits were charged and what they saved; another account sees none of it', async () => {
      const { key } = await w.account();
      const ask = () => w.chat('saved', { svc_parameters: { cache: 'use' } }, { key });
      const first = await ask();
      expect(first.headers.get('x-svc-cache')).toBe('MISS');
      const original = Math.round(((await first.json()) as { cost: { usd: number } }).cost.usd * 1e6);
      expect(original).toBeGreaterThan(0);
      for (let i = 0; i < 3; i++) {
        const hit = await ask();
        expect(hit.headers.get('x-svc-cache')).toBe('HIT');
        await hit.text();
      }
      const charged = 3 * Math.round(original / 2);
      expect(await savings(key)).toEqual([
        {
          model: 'fix-plain',
          requests: 4,
          hits: 3,
          hitRate: 0.75,
          chargedMicros: charged,
          originalMicros: 3 * original,
          savedMicros: 3 * original - charged,
        },
      ]);
      const other = await w.account();
      expect(await savings(other.key)).toEqual([]);
    });

    const get = (query: string, authorization?: string) =>
      fetch(`${w.base.replace(/\/api\/v1$/, '')}/console/api/cache-savings?${query}`, {
        headers: authorization ? { authorization } : {},
      });
    const errorOf = async (res: Response) => ((await res.json()) as { error: string }).error;

    test('no key or an unknown one is a 401; an INFERENCE key a 403', async () => {
      expect((await get('window=24h')).status).toBe(401);
      expect((await get('window=24h', 'Bearer svc_not_a_real_key_000000000000')).status).toBe(401);
      const inference = await w.t.request('/api_keys', { method: 'POST', json: { apiKeyType: 'INFERENCE', description: 'savings' } });
      const secret = ((await inference.json()) as { data: { apiKey: string } }).data.apiKey;
      const res = await get('window=24h', `Bearer ${secret}`);
      expect(res.status).toBe(403);
    });

    test("an accountId that is not a UUID is a 400 naming it; another account's figures are the operator's alone (403)", async () => {
      const bad = await get('window=24h&accountId=nope', `Bearer ${w.t.adminKey}`);
      expect(bad.status).toBe(400);
      expect(await errorOf(bad)).toContain('accountId');
      const { key } = await w.account();
      const other = await w.account();
      const res = await get(`window=24h&accountId=${other.accountId}`, `Bearer ${key}`);
      expect(res.status).toBe(403);
      expect(await errorOf(res)).toContain('usage');
      // The operator's ADMIN key reads it.
      expect((await get(`window=24h&accountId=${other.accountId}`, `Bearer ${w.t.adminKey}`)).status).toBe(200);
    });

    test('an unknown window is a 400 naming it', async () => {
      const res = await fetch(`${w.base.replace(/\/api\/v1$/, '')}/console/api/cache-savings?window=1y`, {
        headers: { authorization: `Bearer ${w.t.adminKey}` },
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: string }).error).toContain('window');
    });
  });
