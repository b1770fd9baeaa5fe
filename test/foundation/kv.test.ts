import { afterAll, describe, expect, test } from 'bun:test';
import { randomBytes } from 'node:crypto';
import type { KeyValueStore } from '../../src/kv/store';
import { BACKENDS } from '../helpers/backends';

describe.each(BACKENDS)('key-value store on $name', (backend) => {
  const opened: KeyValueStore[] = [];
  const open = async (prefix?: string) => {
    const kv = await backend.kv({ prefix });
    opened.push(kv);
    return kv;
  };
  afterAll(async () => {
    for (const kv of opened) await kv.close();
  });

  test('get, set with ttl, del', async () => {
    const kv = await open();
    expect(await kv.get('a')).toBeNull();
    await kv.set('a', '1', 60_000);
    expect(await kv.get('a')).toBe('1');
    const ttl = await kv.ttlMs('a');
    expect(ttl).toBeGreaterThan(50_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
    await kv.del('a');
    expect(await kv.get('a')).toBeNull();
    expect(await kv.ttlMs('a')).toBe(-2);
  });

  test('setIfAbsent is single-use under concurrency', async () => {
    const kv = await open();
    const results = await Promise.all(Array.from({ length: 50 }, () => kv.setIfAbsent('nonce', 'x', 10_000)));
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  test('incrBy is atomic and sets the ttl on creation only', async () => {
    const kv = await open();
    const values = await Promise.all(Array.from({ length: 100 }, () => kv.incrBy('n', 2, 30_000)));
    expect(Math.max(...values)).toBe(200);
    expect(new Set(values).size).toBe(100);
    expect(await kv.ttlMs('n')).toBeGreaterThan(0);
  });

  test.skipIf(backend.name !== 'external')(
    'incrBy sends its script by hash, not its text (the abuse guard counts every failure with it)',
    async () => {
      const kv = await open();
      await kv.incrBy('warm', 1, 1_000);
      const link = kv.redis!;
      const send = link.send;
      const sent: string[] = [];
      link.send = (command, args) => (sent.push(command), send.call(link, command, args));
      try {
        expect(await kv.incrBy('m', 1, 1_000)).toBe(1);
      } finally {
        link.send = send;
      }
      expect(sent).toEqual(['EVALSHA']);
    },
  );

  test('prefixes isolate namespaces', async () => {
    const a = await open(`iso:${randomBytes(4).toString('hex')}:`);
    const b = await open(`iso:${randomBytes(4).toString('hex')}:`);
    await a.set('k', 'from-a');
    expect(await b.get('k')).toBeNull();
  });

  test('publish reaches every subscriber of the same namespace', async () => {
    const prefix = `ps:${randomBytes(4).toString('hex')}:`;
    const a = await open(prefix);
    const b = backend.name === 'embedded' ? a : await open(prefix);
    const got: string[] = [];
    const received = new Promise<void>((resolve) => {
      void b.subscribe('chan', (m) => {
        got.push(m);
        resolve();
      });
    });
    await Bun.sleep(backend.name === 'embedded' ? 0 : 50); // let the Redis SUBSCRIBE settle
    await a.publish('chan', 'hello');
    await received;
    expect(got).toEqual(['hello']);
  });
});

describe('memory store expiry', () => {
  test('entries expire on the injected clock', async () => {
    let now = 1_000;
    const { createMemoryStore } = await import('../../src/kv/memory');
    const kv = createMemoryStore({ now: () => now });
    await kv.set('x', 'y', 500);
    await kv.incrBy('c', 1, 500);
    now += 499;
    expect(await kv.get('x')).toBe('y');
    now += 1;
    expect(await kv.get('x')).toBeNull();
    expect(await kv.incrBy('c', 1, 500)).toBe(1);
    await kv.close();
  });
});
