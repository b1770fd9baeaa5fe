import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createRedisStore } from '../../src/kv/redis';
import type { KeyValueStore } from '../../src/kv/store';
import { KvUnavailableError } from '../../src/kv/unavailable';
import { freeRedisPorts, ownRedis, ownRedisCluster, type OwnRedis } from '../helpers/redis-server';

/**
 * A Redis command whose answer is waiting while this process's event loop is blocked (CPU-bound
 * requests: 300 concurrent simulated speech calls held it 15 to 33 s on a loaded machine) is
 * answered, not failed with a 503: the command deadline counts the loop's responsive time, not
 * the time it was blocked. A Redis that really does not answer still fails the command.
 */
const TIMEOUT_MS = 200;

/** Holds the event loop for `ms`, as a burst of CPU-bound work does. */
function blockLoop(ms: number) {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy: no timer, no socket read
  }
}

/** A rejection as a value, so a test can wait for it without an unhandled rejection. */
const outcome = (p: Promise<unknown>) =>
  p.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );

describe.each(['single', 'cluster'] as const)('a %s Redis behind a blocked event loop', (topology) => {
  let nodes: OwnRedis[] = [];
  let dispose = async () => {};
  let store: KeyValueStore;

  beforeAll(async () => {
    if (topology === 'single') {
      const own = ownRedis(freeRedisPorts(1)[0]!);
      await own.start();
      nodes = [own];
      dispose = () => own.dispose();
    } else {
      const cluster = await ownRedisCluster(freeRedisPorts(3));
      nodes = cluster.nodes;
      dispose = cluster.dispose;
    }
    store = await createRedisStore(nodes[0]!.url, { prefix: 'blocked:', redis: { commandTimeoutMs: TIMEOUT_MS } });
  }, 30_000);

  afterAll(async () => {
    await store?.close();
    await dispose();
  });

  test(`commands sent before a ${TIMEOUT_MS * 8} ms block get their answers`, async () => {
    await store.set('k', 'v');
    const pending = Array.from({ length: 50 }, (_, i) => outcome(i % 2 ? store.get('k') : store.incrBy('n', 1, 60_000)));
    blockLoop(TIMEOUT_MS * 8);
    const results = await Promise.all(pending);
    expect(results.filter((r) => 'error' in r)).toEqual([]);
    expect(await store.get('n')).toBe('25');
    // The link is still up: nothing was taken for a dead connection.
    expect(await store.get('k')).toBe('v');
  });

  test('a Redis that does not answer still fails the command with KvUnavailableError', async () => {
    // Keys of every slot range, so on a cluster the paused node gets one of them.
    for (const n of nodes) n.pause();
    try {
      const results = await Promise.all(['a', 'b', 'c', 'd', 'e', 'f'].map((k) => outcome(store.get(k))));
      expect(results.every((r) => 'error' in r && r.error instanceof KvUnavailableError)).toBe(true);
    } finally {
      for (const n of nodes) n.resume();
    }
  }, 30_000);
});
