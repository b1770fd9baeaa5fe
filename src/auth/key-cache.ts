import type { Database } from '../db/database';
import type { KeyValueStore } from '../kv/store';
import { findKeyByHash, type ApiKeyRecord } from './api-keys';

/** Channel on which key deletions and updates are announced to every instance. */
export const KEY_INVALIDATION_CHANNEL = 'keys:invalidate';

/** Looks keys up by secret hash with a short-lived in-process cache. */
export interface KeyCache {
  lookup(secretHash: string): Promise<ApiKeyRecord | null>;
  /** Drops a key from every instance's cache (after delete or update). */
  invalidate(secretHash: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Creates the key cache. Hits cost no database round trip; misses are cached briefly too,
 * so a flood of bad keys does not reach Postgres. Invalidation goes through the KV store's
 * pub/sub, so a deleted key stops working at once on every instance.
 */
export async function createKeyCache(db: Database, kv: KeyValueStore, opts: { ttlMs?: number; now?: () => number } = {}): Promise<KeyCache> {
  const ttlMs = opts.ttlMs ?? 60_000;
  const now = opts.now ?? Date.now;
  const cache = new Map<string, { record: ApiKeyRecord | null; until: number }>();
  const inflight = new Map<string, Promise<ApiKeyRecord | null>>();
  const stop = await kv.subscribe(KEY_INVALIDATION_CHANNEL, (hash) => {
    if (hash === '*') cache.clear();
    else cache.delete(hash);
  });

  async function load(secretHash: string): Promise<ApiKeyRecord | null> {
    const record = await findKeyByHash(db, secretHash);
    if (cache.size > 100_000) cache.clear();
    cache.set(secretHash, { record, until: now() + (record ? ttlMs : Math.min(ttlMs, 5_000)) });
    return record;
  }

  return {
    lookup(secretHash) {
      const hit = cache.get(secretHash);
      if (hit && hit.until > now()) return Promise.resolve(hit.record);
      let pending = inflight.get(secretHash);
      if (!pending) {
        pending = load(secretHash).finally(() => inflight.delete(secretHash));
        inflight.set(secretHash, pending);
      }
      return pending;
    },
    async invalidate(secretHash) {
      cache.delete(secretHash);
      await kv.publish(KEY_INVALIDATION_CHANNEL, secretHash);
    },
    close: stop,
  };
}
