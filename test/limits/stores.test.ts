import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { randomBytes } from 'node:crypto';
import type { KeyValueStore } from '../../src/kv/store';
import { createRedisStore } from '../../src/kv/redis';
import { createMemoryLimitStore } from '../../src/limits/memory-store';
import { rateKey } from '../../src/limits/redis-scripts';
import { createRedisLimitStore } from '../../src/limits/redis-store';
import type { LimitKey, LimitStore } from '../../src/limits/store';

/** Each store under test, with how to get a fresh window in it. */
interface StoreCase {
  name: string;
  make(windowMs: number): Promise<LimitStore>;
  /** Moves to the start of the next window (fake clock) or waits until the store's next window begins. */
  nextWindow(resetAt: number): Promise<void>;
  /** Makes sure the next few hundred ms stay in one window. */
  freshWindow(windowMs: number): Promise<void>;
}

let clock = Date.parse('2026-03-01T10:00:05Z');
const memory: StoreCase = {
  name: 'memory',
  make: async (windowMs) => createMemoryLimitStore({ now: () => clock, windowMs }),
  async nextWindow(resetAt) {
    clock = resetAt;
  },
  async freshWindow(windowMs) {
    clock = (Math.floor(clock / windowMs) + 1) * windowMs + 5;
  },
};

let kv: KeyValueStore | null = null;
const redis: StoreCase = {
  name: 'redis',
  async make(windowMs) {
    kv ??= await createRedisStore(process.env.REDIS_URL as string, { prefix: `t:${randomBytes(6).toString('hex')}:` });
    return createRedisLimitStore(kv.redis!, kv.prefix, { windowMs });
  },
  async nextWindow(resetAt) {
    await Bun.sleep(Math.max(0, resetAt - Date.now()) + 5);
  },
  async freshWindow(windowMs) {
    const left = windowMs - (Date.now() % windowMs);
    if (left < Math.min(2_000, windowMs / 2)) await Bun.sleep(left + 5);
  },
};

const CASES = [memory, ...(process.env.REDIS_URL ? [redis] : [])];
const id = (): LimitKey => ({ account: `acct-${randomBytes(4).toString('hex')}`, scope: 'model' });
// Long windows for the semantics tests, so a real clock never crosses a boundary mid-test.
const LONG = 600_000;

afterAll(async () => {
  await kv?.close();
});

for (const c of CASES)
  describe(`${c.name} limit store`, () => {
    let store: LimitStore;
    beforeAll(async () => {
      store = await c.make(LONG);
      await c.freshWindow(LONG);
    });
    afterAll(() => store.close());

    test('counts requests up to the limit, then refuses without counting the refusal', async () => {
      const key = id();
      for (let i = 1; i <= 3; i++) expect(await store.admit(key, 3, null)).toMatchObject({ refused: null, requests: i });
      const refused = await store.admit(key, 3, null);
      expect(refused).toMatchObject({ refused: 'RPM', requests: 3 });
      expect(refused.resetAt % LONG).toBe(0);
      // A higher limit (an operator override) applies to the same counter at once.
      expect(await store.admit(key, 4, null)).toMatchObject({ refused: null, requests: 4 });
    });

    test('a request refused on tokens consumes neither a request nor tokens', async () => {
      const key = id();
      expect(await store.admit(key, 10, { limit: 1000, reserve: 700 })).toMatchObject({ refused: null, requests: 1, tokens: 700 });
      expect(await store.admit(key, 10, { limit: 1000, reserve: 400 })).toMatchObject({ refused: 'TPM', requests: 1, tokens: 700 });
      expect(await store.admit(key, 10, { limit: 1000, reserve: 300 })).toMatchObject({ refused: null, requests: 2, tokens: 1000 });
      // No token left at all: even a request reserving nothing is refused.
      expect(await store.admit(key, 10, { limit: 1000, reserve: 0 })).toMatchObject({ refused: 'TPM', requests: 2 });
    });

    test('a request refused on requests gives its reserved tokens back', async () => {
      const key = id();
      await store.admit(key, 1, { limit: 1000, reserve: 100 });
      expect(await store.admit(key, 1, { limit: 1000, reserve: 100 })).toMatchObject({ refused: 'RPM', tokens: 100 });
      expect(await store.admit(key, 2, { limit: 1000, reserve: 0 })).toMatchObject({ refused: null, requests: 2, tokens: 100 });
    });

    test('token corrections give back or take the difference in the reservation window', async () => {
      const key = id();
      const first = await store.admit(key, 10, { limit: 1000, reserve: 900 });
      await store.correctTokens(key, first.window, -850);
      expect(await store.admit(key, 10, { limit: 1000, reserve: 100 })).toMatchObject({ refused: null, tokens: 150 });
      await store.correctTokens(key, first.window, 800);
      expect(await store.admit(key, 10, { limit: 1000, reserve: 100 })).toMatchObject({ refused: 'TPM', tokens: 950 });
      // A window already over is left alone.
      await store.correctTokens(key, first.window - 1, -500);
      expect(await store.admit(key, 10, { limit: 1000, reserve: 100 })).toMatchObject({ refused: 'TPM', tokens: 950 });
    });

    test('200 concurrent requests against a limit of 50: exactly 50 pass', async () => {
      const key = id();
      const results = await Promise.all(Array.from({ length: 200 }, () => store.admit(key, 50, { limit: 1_000_000, reserve: 10 })));
      expect(results.filter((r) => r.refused === null)).toHaveLength(50);
      expect(results.filter((r) => r.refused === 'RPM')).toHaveLength(150);
      expect(await store.admit(key, 51, { limit: 1_000_000, reserve: 0 })).toMatchObject({ refused: null, requests: 51, tokens: 500 });
    });

    test('a new window starts from zero', async () => {
      const windowMs = 300;
      const short = await c.make(windowMs);
      await c.freshWindow(windowMs);
      const key = id();
      await short.admit(key, 2, { limit: 100, reserve: 60 });
      await short.admit(key, 2, { limit: 100, reserve: 40 });
      const refused = await short.admit(key, 2, { limit: 100, reserve: 1 });
      expect(refused.refused).toBe('RPM');
      await c.nextWindow(refused.resetAt);
      expect(await short.admit(key, 2, { limit: 100, reserve: 100 })).toMatchObject({ refused: null, requests: 1, tokens: 100 });
      await short.close();
    });
  });

describe.skipIf(!process.env.REDIS_URL)('redis limit store', () => {
  test("a key's window is one hash under the account's hash tag (its billing slot), and a refusal writes nothing", async () => {
    const store = await redis.make(LONG);
    await redis.freshWindow(LONG);
    const key = id();
    const admitted = await store.admit(key, 1, { limit: 100, reserve: 30 });
    const name = rateKey(kv!.prefix, key, admitted.window);
    expect(name).toContain(`{${key.account}}`);
    expect(await kv!.redis!.send('HMGET', [name, 'r', 't'])).toEqual(['1', '30']);
    const ttl = Number(await kv!.redis!.send('PTTL', [name]));
    expect(ttl).toBeGreaterThan(LONG);
    expect(ttl).toBeLessThanOrEqual(LONG + 1_000);
    expect(await store.admit(key, 1, { limit: 100, reserve: 30 })).toMatchObject({ refused: 'RPM', requests: 1, tokens: 30 });
    expect(await store.admit(key, 2, { limit: 100, reserve: 80 })).toMatchObject({ refused: 'TPM', requests: 1, tokens: 30 });
    expect(await kv!.redis!.send('HMGET', [name, 'r', 't'])).toEqual(['1', '30']);
    // A correction never takes the count below zero, and a window that expired stays gone.
    await store.correctTokens(key, admitted.window, -500);
    expect(await kv!.redis!.send('HMGET', [name, 'r', 't'])).toEqual(['1', '0']);
    await kv!.redis!.send('DEL', [name]);
    await store.correctTokens(key, admitted.window, 10);
    expect(Number(await kv!.redis!.send('EXISTS', [name]))).toBe(0);
    await store.close();
  });
});
