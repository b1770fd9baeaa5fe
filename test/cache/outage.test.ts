import { afterAll, beforeAll, expect, test } from 'bun:test';
import { EMBEDDED } from '../helpers/backends';
import { dbSize, freeRedisPorts, ownRedis, type OwnRedis } from '../helpers/redis-server';
import { readChatStream, startCacheWorld, type CacheWorld } from './world';

// The cache on a Redis of its own (`pluginStoreRedisUrl`), started and stopped by this test on
// its own port; the meter and limits stay in memory, so only the cache loses its store.
let redis: OwnRedis;
let w: CacheWorld;
let port: number;

beforeAll(async () => {
  port = freeRedisPorts(1)[0]!;
  redis = ownRedis(port);
  w = await startCacheWorld(EMBEDDED, {}, { pluginStoreRedisUrl: redis.url });
});
afterAll(async () => {
  await w?.close();
  await redis?.dispose();
});

const ask = (extra: Record<string, unknown> = {}) => w.chat('outage', { svc_parameters: { cache: 'use' }, ...extra });

/** Polls `check` until it holds or `ms` passed. */
async function eventually(check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await Bun.sleep(100);
  }
}

test('Redis away at start, then up, then down, then frozen: every request is served; the cache bypasses while it is away and counts it', async () => {
  // Not started yet: svc started anyway, and the cache bypasses.
  const early = await ask();
  expect(early.status).toBe(200);
  expect(early.headers.get('x-svc-cache')).toBe('BYPASS');

  await redis.start();
  await eventually(async () => (await ask()).headers.get('x-svc-cache') === 'HIT');
  expect(dbSize(port)).toBeGreaterThan(0);

  await redis.stop();
  w.reset();
  for (const stream of [false, true]) {
    const res = await ask({ stream });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-svc-cache')).toBe('BYPASS');
    expect(stream ? (await readChatStream(res)).done : (await res.json()).choices[0].message.content).toBeTruthy();
  }
  expect(w.calls()).toBe(2);
  const metrics = await (await w.t.app.handle(new Request('http://localhost/metrics'))).text();
  expect(metrics).toMatch(/svc_plugin_cache_store_errors_total\{[^}]*op="read"[^}]*\} [1-9]/);

  await redis.start();
  await eventually(async () => (await ask()).headers.get('x-svc-cache') === 'HIT');

  // Frozen: the socket is open but nothing answers; the store's time bound turns it into a bypass.
  redis.pause();
  try {
    const started = performance.now();
    const res = await ask();
    expect(res.status).toBe(200);
    expect(res.headers.get('x-svc-cache')).toBe('BYPASS');
    expect(performance.now() - started).toBeLessThan(5_000);
  } finally {
    redis.resume();
  }
});
