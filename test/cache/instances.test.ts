import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createApp } from '../../src/app';
import { closeDeps, createDeps } from '../../src/boot';
import type { Storage } from '../../src/db/database';
import { createRedisStore } from '../../src/kv/redis';
import { BACKENDS } from '../helpers/backends';
import { startCacheWorld, type CacheWorld } from './world';

// Two instances share the herd only through the plugin store; on the embedded backend each
// instance has its own memory store, so there is nothing shared to test.
const external = BACKENDS.find((b) => b.name === 'external');

/** A second svc instance of `w`'s: its own plugins, herd, caches and Redis connection; the same Postgres and Redis namespace. */
async function secondInstance(w: CacheWorld) {
  const first = w.t.deps;
  const kv = await createRedisStore(process.env.REDIS_URL as string, { prefix: first.kv.prefix });
  // The database is the first instance's: closing this one must leave it open.
  const storage = Object.create(first.storage, { close: { value: async () => {} } }) as Storage;
  const deps = await createDeps(first.config, { storage, kv });
  const app = createApp(deps);
  return {
    chat: (content: string, extra: Record<string, unknown>) =>
      app.handle(
        new Request(`http://localhost${first.config.basePath}/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${w.t.adminKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'fix-plain', messages: [{ role: 'user', content }], temperature: 0, ...extra }),
        }),
      ),
    close: () => closeDeps(deps),
  };
}

describe.skipIf(!external)('response cache across two instances (external backend only: the embedded one shares no store)', () => {
  let w: CacheWorld;
  let b: Awaited<ReturnType<typeof secondInstance>>;
  beforeAll(async () => {
    w = await startCacheWorld(external!);
    b = await secondInstance(w);
  }, 60_000);
  afterAll(async () => {
    await b?.close();
    await w?.close();
  });

  test('ten concurrent identical misses split across two instances make one upstream call; all get the answer', async () => {
    w.reset({ headerDelayMs: 400 });
    const ask = { svc_parameters: { cache: 'use' } };
    const all = await Promise.all(
      Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? w.chat('two herds', ask) : b.chat('two herds', ask))),
    );
    expect(all.map((r) => r.status)).toEqual(Array(10).fill(200));
    const statuses = all.map((r) => r.headers.get('x-svc-cache'));
    const texts = await Promise.all(all.map(async (r) => (await r.json()).choices[0].message.content));
    expect(w.calls()).toBe(1);
    expect(statuses.filter((s) => s === 'MISS')).toHaveLength(1);
    expect(statuses.filter((s) => s === 'HIT')).toHaveLength(9);
    expect(new Set(texts).size).toBe(1);
  });

  test('an entry stored through one instance is a hit on the other', async () => {
    w.reset();
    const miss = await b.chat('stored on b', { svc_parameters: { cache: 'use' } });
    expect(miss.headers.get('x-svc-cache')).toBe('MISS');
    await miss.json();
    // The store happens after the answer (onSettled): poll briefly until it landed.
    let hit: Response | null = null;
    for (let i = 0; i < 50; i++) {
      hit = await w.chat('stored on b', { svc_parameters: { cache: 'use' } });
      if (hit.headers.get('x-svc-cache') === 'HIT') break;
      await hit.text();
      await Bun.sleep(20);
    }
    expect(hit!.headers.get('x-svc-cache')).toBe('HIT');
    expect(w.calls()).toBe(1);
  });
});
