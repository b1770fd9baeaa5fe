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
    local: true,
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

/** The key-value operations a plugin's store is built on. */
type KvOps = Pick<KeyValueStore, 'get' | 'set' | 'setIfAbsent' | 'del' | 'incrBy'>;

/** A plugin's namespace on the configured key-value store (Redis single or Cluster). */
function kvStore(kv: KvOps, prefix: string): PluginStore {
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
 * The plugins' own Redis (`pluginStoreRedisUrl`), connected on first use rather than at start:
 * a cache's Redis being away must not stop svc. Until it answers, every call fails (and the next
 * one tries again); once connected, the link reconnects by itself and fails fast while down.
 */
export class LazyRedisKv implements KvOps {
  private opening: Promise<KeyValueStore> | null = null;

  constructor(private readonly connect: () => Promise<KeyValueStore>) {}

  private ready(): Promise<KeyValueStore> {
    this.opening ??= this.connect().catch((error: unknown) => {
      this.opening = null;
      throw error;
    });
    return this.opening;
  }

  get = async (key: string) => (await this.ready()).get(key);
  set = async (key: string, value: string, ttlMs?: number) => (await this.ready()).set(key, value, ttlMs);
  setIfAbsent = async (key: string, value: string, ttlMs: number) => (await this.ready()).setIfAbsent(key, value, ttlMs);
  del = async (key: string) => (await this.ready()).del(key);
  incrBy = async (key: string, by: number, ttlMs?: number) => (await this.ready()).incrBy(key, by, ttlMs);

  /** Closes the connection if one was opened. */
  async close(): Promise<void> {
    const opened = await this.opening?.catch(() => null);
    await opened?.close();
  }
}

/**
 * The plugins' stores: on their own Redis when `own` is given, else on Redis when the app's key-value store is Redis (every instance sees
 * the same entries), else in this process within `maxBytes` (least recently used evicted).
 * Each plugin gets its own namespace, `plugin:<name>:`.
 */
export function pluginStores(kv: KeyValueStore, maxBytes: number, now: () => number, own?: KvOps): (plugin: string) => PluginStore {
  if (own) return (plugin) => kvStore(own, `plugin:${plugin}:`);
  if (kv.backend === 'redis') return (plugin) => kvStore(kv, `plugin:${plugin}:`);
  const memory = new MemoryPluginKv(maxBytes, now);
  return (plugin) => memoryStore(memory, `${plugin}\u0000`);
}
