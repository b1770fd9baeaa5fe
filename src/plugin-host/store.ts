import type { PluginStore } from '@svc/plugin-sdk';
import type { KeyValueStore } from '../kv/store';
import { MemoryPluginKv } from './store-memory';

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

// On Redis every value is text: a type mark, then the string or the bytes in base64.
const TEXT = 's';
const BYTES = 'b';

/** A plugin's namespace on the memory store. */
function memoryStore(kv: MemoryPluginKv, prefix: string): PluginStore {
  return {
    async get(key) {
      const v = kv.read(prefix + key)?.value;
      return v === undefined ? null : typeof v === 'string' ? v : fromUtf8.decode(v);
    },
    async getBytes(key) {
      const v = kv.read(prefix + key)?.value;
      return v === undefined ? null : typeof v === 'string' ? utf8.encode(v) : v;
    },
    async set(key, value, ttlMs) {
      kv.write(prefix + key, value, ttlMs);
    },
    async setIfAbsent(key, value, ttlMs) {
      if (kv.read(prefix + key)) return false;
      kv.write(prefix + key, value, ttlMs);
      return true;
    },
    async delete(key) {
      kv.remove(prefix + key);
    },
    async incrBy(key, by, ttlMs) {
      const e = kv.read(prefix + key);
      const next = (e ? Number(e.value) || 0 : 0) + by;
      if (ttlMs === undefined && e) kv.writeUntil(prefix + key, String(next), e.expiresAt);
      else kv.write(prefix + key, String(next), ttlMs);
      return next;
    },
  };
}

/** A plugin's namespace on the configured key-value store (Redis single or Cluster). */
function kvStore(kv: KeyValueStore, prefix: string): PluginStore {
  // A counter (INCRBY) has no mark: it starts with a digit or '-'.
  const decode = (v: string | null) =>
    v === null ? null : v.startsWith(BYTES) ? Buffer.from(v.slice(1), 'base64') : v.startsWith(TEXT) ? v.slice(1) : v;
  return {
    async get(key) {
      const v = decode(await kv.get(prefix + key));
      return v === null || typeof v === 'string' ? v : fromUtf8.decode(v);
    },
    async getBytes(key) {
      const v = decode(await kv.get(prefix + key));
      return v === null ? null : typeof v === 'string' ? utf8.encode(v) : new Uint8Array(v);
    },
    set: (key, value, ttlMs) =>
      kv.set(prefix + key, typeof value === 'string' ? TEXT + value : BYTES + Buffer.from(value).toString('base64'), ttlMs),
    setIfAbsent: (key, value, ttlMs) => kv.setIfAbsent(prefix + key, TEXT + value, ttlMs),
    delete: (key) => kv.del(prefix + key),
    // Counters stay plain numbers (INCRBY needs them so); `get` of one reads it without a mark.
    incrBy: (key, by, ttlMs) => kv.incrBy(prefix + key, by, ttlMs),
  };
}

/**
 * The plugins' stores: on Redis when the app's key-value store is Redis (every instance sees
 * the same entries), else in this process within `maxBytes` (least recently used evicted).
 * Each plugin gets its own namespace, `plugin:<name>:`.
 */
export function pluginStores(kv: KeyValueStore, maxBytes: number, now: () => number): (plugin: string) => PluginStore {
  if (kv.backend === 'redis') return (plugin) => kvStore(kv, `plugin:${plugin}:`);
  const memory = new MemoryPluginKv(maxBytes, now);
  return (plugin) => memoryStore(memory, `${plugin}\u0000`);
}
