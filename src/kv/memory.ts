import type { KeyValueStore } from './store';

interface Entry {
  value: string;
  /** Epoch ms after which the entry is gone; Infinity for no expiry. */
  expiresAt: number;
}

/** Creates the in-process store: a Map with lazy expiry and a periodic sweep. */
export function createMemoryStore(opts: { prefix?: string; now?: () => number } = {}): KeyValueStore {
  const now = opts.now ?? Date.now;
  const prefix = opts.prefix ?? '';
  const entries = new Map<string, Entry>();
  const listeners = new Map<string, Set<(message: string) => void>>();

  function live(key: string): Entry | undefined {
    const entry = entries.get(key);
    if (entry && entry.expiresAt <= now()) {
      entries.delete(key);
      return undefined;
    }
    return entry;
  }
  const expiry = (ttlMs?: number) => (ttlMs && ttlMs > 0 ? now() + ttlMs : Infinity);

  const sweep = setInterval(function sweepExpired() {
    const t = now();
    for (const [key, entry] of entries) if (entry.expiresAt <= t) entries.delete(key);
  }, 10_000);
  sweep.unref?.();

  return {
    backend: 'memory',
    redis: null,
    prefix,
    async get(key) {
      return live(prefix + key)?.value ?? null;
    },
    async set(key, value, ttlMs) {
      entries.set(prefix + key, { value, expiresAt: expiry(ttlMs) });
    },
    async setIfAbsent(key, value, ttlMs) {
      if (live(prefix + key)) return false;
      entries.set(prefix + key, { value, expiresAt: expiry(ttlMs) });
      return true;
    },
    async del(key) {
      entries.delete(prefix + key);
    },
    async incrBy(key, by, ttlMs) {
      const entry = live(prefix + key);
      const next = (entry ? Number(entry.value) : 0) + by;
      entries.set(prefix + key, { value: String(next), expiresAt: entry ? entry.expiresAt : expiry(ttlMs) });
      return next;
    },
    async ttlMs(key) {
      const entry = live(prefix + key);
      if (!entry) return -2;
      return entry.expiresAt === Infinity ? -1 : entry.expiresAt - now();
    },
    async publish(channel, message) {
      for (const fn of listeners.get(prefix + channel) ?? []) queueMicrotask(() => fn(message));
    },
    async subscribe(channel, onMessage) {
      const set = listeners.get(prefix + channel) ?? new Set();
      set.add(onMessage);
      listeners.set(prefix + channel, set);
      return async () => void set.delete(onMessage);
    },
    async close() {
      clearInterval(sweep);
      entries.clear();
      listeners.clear();
    },
  };
}
