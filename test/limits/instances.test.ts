import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createApp } from '../../src/app';
import { createDeps } from '../../src/boot';
import type { AppDeps } from '../../src/deps';
import { createRedisStore } from '../../src/kv/redis';
import { LIMITS_INVALIDATION_CHANNEL } from '../../src/limits/account-limits';
import type { TestApp } from '../helpers/app';
import { BACKENDS } from '../helpers/backends';
import { awayFromMinuteBoundary, chatBody, limitsMeter, newAccount, startLimitsApp } from './helpers';

/** Another instance of `a`: its own caches, limiter and (on Redis) connections, the same database and KV namespace. */
async function instanceOf(a: TestApp) {
  const kv =
    a.deps.kv.backend === 'redis' ? await createRedisStore(process.env.REDIS_URL as string, { prefix: a.deps.kv.prefix }) : a.deps.kv;
  let deps: AppDeps | null = null;
  deps = await createDeps(a.deps.config, { storage: a.deps.storage, kv, meter: limitsMeter(() => deps as AppDeps) });
  const app = createApp(deps);
  const own = deps;
  return {
    deps: own,
    chat: (key: string, model: string, extra: Record<string, unknown> = {}) =>
      app.handle(
        new Request('http://localhost/api/v1/chat/completions', {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify(chatBody(model, extra)),
        }),
      ),
    async close() {
      await own.limits.close();
      await own.keys.close();
      if (kv !== a.deps.kv) await kv.close();
    },
  };
}

for (const backend of BACKENDS)
  describe(`rate limits across instances on ${backend.name}`, () => {
    let a: TestApp;
    let b: Awaited<ReturnType<typeof instanceOf>>;
    beforeAll(async () => {
      a = await startLimitsApp({ backend });
      b = await instanceOf(a);
    });
    afterAll(async () => {
      await b.close();
      await a.close();
    });

    test('an operator override made on A is in force on B as soon as the invalidation arrives', async () => {
      const acct = await newAccount(a.deps.storage.db);
      const before = await b.chat(acct.inferenceKey, 'qwen3-4b');
      expect(before.headers.get('x-ratelimit-limit-requests')).toBe('500'); // B has the account cached now
      let stop = async () => {};
      const delivered = new Promise<void>((resolve) => {
        void b.deps.kv.subscribe(LIMITS_INVALIDATION_CHANNEL, () => resolve()).then((s) => (stop = s));
      });
      await Bun.sleep(0);
      const put = await a.request(`/admin/accounts/${acct.accountId}/rate_limits`, {
        method: 'PUT',
        json: { overrides: { models: { 'qwen3-4b': { rpm: 2 } } } },
      });
      expect(put.status).toBe(200);
      await delivered;
      await stop();
      const after = await b.chat(acct.inferenceKey, 'qwen3-4b');
      expect(after.headers.get('x-ratelimit-limit-requests')).toBe('2');
      if (backend.name === 'external') {
        // The counter is shared: B's request before the change counts too.
        expect(after.headers.get('x-ratelimit-remaining-requests')).toBe('0');
        expect((await a.request('/chat/completions', { method: 'POST', key: acct.inferenceKey, json: chatBody('qwen3-4b') })).status).toBe(
          429,
        );
      }
    });

    test.skipIf(backend.name !== 'external')(
      '3 instances sharing Postgres and Redis: 200 concurrent requests against 50, exactly 50 pass',
      async () => {
        const c = await instanceOf(a);
        try {
          const acct = await newAccount(a.deps.storage.db);
          const instances = [
            (k: string, m: string) => a.request('/chat/completions', { method: 'POST', key: k, json: chatBody(m) }),
            b.chat,
            c.chat,
          ];
          await awayFromMinuteBoundary(false);
          const all = await Promise.all(Array.from({ length: 200 }, (_, i) => instances[i % 3]!(acct.inferenceKey, 'llama-3.3-70b')));
          expect(all.filter((r) => r.status === 200)).toHaveLength(50);
          expect(all.filter((r) => r.status === 429)).toHaveLength(150);
        } finally {
          await c.close();
        }
      },
    );
  });
