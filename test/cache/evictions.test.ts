import { afterAll, beforeAll, expect, test } from 'bun:test';
import { EMBEDDED } from '../helpers/backends';
import { startCacheWorld, type CacheWorld } from './world';

// The embedded store holds the cache within pluginStoreMaxBytes, least recently used evicted
// first; each eviction of a live entry is counted in /metrics (Redis evicts by its own policy).
let w: CacheWorld;
beforeAll(async () => {
  w = await startCacheWorld(EMBEDDED, {}, { pluginStoreMaxBytes: 16 * 1024 });
});
afterAll(() => w.close());

const evictions = async () => {
  const text = await (await w.t.app.handle(new Request('http://localhost/metrics'))).text();
  const line = text.split('\n').find((l) => l.startsWith('svc_plugin_store_evictions_total{plugin="cache"}'));
  return line ? Number(line.split(' ').at(-1)) : 0;
};
const ask = (i: number) => w.chat(`prompt number ${i}`, { svc_parameters: { cache: 'use' } });

test('past the byte budget the least recently used answers are evicted, counted in /metrics; the newest still hit', async () => {
  const before = await evictions();
  for (let i = 0; i < 40; i++) expect((await ask(i)).headers.get('x-svc-cache')).toBe('MISS');
  const evicted = (await evictions()) - before;
  expect(evicted).toBeGreaterThan(0);
  expect((await ask(39)).headers.get('x-svc-cache')).toBe('HIT');
  // The first answers were evicted: asked again, they go upstream.
  const calls = w.calls();
  expect((await ask(0)).headers.get('x-svc-cache')).toBe('MISS');
  expect(w.calls()).toBe(calls + 1);
});
