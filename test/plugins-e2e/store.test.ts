import { afterAll, describe, expect, test } from 'bun:test';
import type { KeyValueStore } from '../../src/kv/store';
import { MemoryPluginKv } from '../../src/plugin-host/store-memory';
import { pluginStores } from '../../src/plugin-host/store';
import { BACKENDS } from '../helpers/backends';

const opened: KeyValueStore[] = [];
afterAll(async () => {
  for (const kv of opened) await kv.close();
});

for (const backend of BACKENDS) {
  describe(`plugin store on ${backend.name === 'embedded' ? 'memory' : 'Redis'}`, () => {
    const stores = async () => {
      const kv = await backend.kv();
      opened.push(kv);
      return pluginStores(kv, 1 << 20, Date.now);
    };

    test('strings, bytes, counters; each plugin its own namespace', async () => {
      const of = await stores();
      const a = of('cache');
      const b = of('guard');
      await a.set('k', 'text ünïcode');
      await a.set('bin', new Uint8Array([0, 1, 255]));
      expect(await a.get('k')).toBe('text ünïcode');
      expect(await a.getBytes('bin')).toEqual(new Uint8Array([0, 1, 255]));
      expect(await a.getBytes('k')).toEqual(new TextEncoder().encode('text ünïcode'));
      expect(await b.get('k')).toBeNull();
      expect(await a.incrBy('n', 2)).toBe(2);
      expect(await a.incrBy('n', 3)).toBe(5);
      expect(await a.get('n')).toBe('5');
      await a.delete('k');
      expect(await a.get('k')).toBeNull();
    });

    test('setIfAbsent is a lock; TTLs expire', async () => {
      const s = (await stores())('lock');
      expect(await s.setIfAbsent('l', 'me', 60_000)).toBe(true);
      expect(await s.setIfAbsent('l', 'you', 60_000)).toBe(false);
      expect(await s.get('l')).toBe('me');
      await s.set('short', 'x', 50);
      await Bun.sleep(120);
      expect(await s.get('short')).toBeNull();
    });
  });
}

test('memory: past its byte budget the least recently used entries go first', () => {
  const kv = new MemoryPluginKv(1_000);
  kv.write('a', 'x'.repeat(100));
  kv.write('b', 'y'.repeat(100));
  kv.read('a'); // a is now the most recently used
  kv.write('c', 'z'.repeat(300));
  expect(kv.read('b')).toBeNull();
  expect(kv.read('a')?.value).toBe('x'.repeat(100));
  expect(kv.read('c')).not.toBeNull();
  expect(kv.size).toBeLessThanOrEqual(1_000);
  expect(kv.evictions).toBe(1);
  kv.write('huge', 'h'.repeat(1_000));
  expect(kv.read('huge')).toBeNull();
});
