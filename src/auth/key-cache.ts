import type { Database } from '../db/database';
import type { KeyValueStore } from '../kv/store';
import { findKeyByHash, type ApiKeyRecord } from './api-keys';
import { createLastUsedTracker } from './last-used';

/** Channel on which key deletions and updates are announced to every instance. */
export const KEY_INVALIDATION_CHANNEL = 'keys:invalidate';

/** Looks keys up by secret hash with a short-lived in-process cache. */
export interface KeyCache {
  lookup(secretHash: string): Promise<ApiKeyRecord | null>;
  /** The cached answer while it is fresh (null: no such key), else undefined (then `lookup`): no promise on a hit. */
  peek(secretHash: string): ApiKeyRecord | null | undefined;
  /** Drops a key from every instance's cache (after delete or update). */
  invalidate(secretHash: string): Promise<void>;
  /** Notes a successful use of a key; `last_used_at` is written in batches. */
  touch(keyId: string): void;
  /** Writes pending `last_used_at` updates now (tests, shutdown). */
  flushUsage(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Creates the key cache. Hits cost no database round trip; misses are cached briefly too,
 * so a flood of bad keys does not reach Postgres. Invalidation goes through the KV store's
 * pub/sub, so a deleted key stops working at once on every instance.
 */
export async function createKeyCache(
  db: Database,
  kv: KeyValueStore,
  opts: { ttlMs?: number; now?: () => number; lastUsedIntervalMs?: number } = {},
): Promise<KeyCache> {
  const ttlMs = opts.ttlMs ?? 60_000;
  const now = opts.now ?? Date.now;
  const cache = new Map<string, { record: ApiKeyRecord | null; until: number }>();
  const inflight = new Map<string, Promise<ApiKeyRecord | null>>();
  // Bumped on every invalidation: a load that started before a delete committed must not
  // put the stale row back into the cache after the invalidation has been processed.
  let generation = 0;
  const lastUsed = createLastUsedTracker(db, { now, intervalMs: opts.lastUsedIntervalMs });

  function drop(hash: string) {
    generation++;
    if (hash === '*') cache.clear();
    else cache.delete(hash);
    inflight.delete(hash);
  }
  const stop = await kv.subscribe(KEY_INVALIDATION_CHANNEL, drop);

  async function load(secretHash: string): Promise<ApiKeyRecord | null> {
    const startedAt = generation;
    const record = await findKeyByHash(db, secretHash);
    if (startedAt === generation) {
      if (cache.size > 100_000) cache.clear();
      cache.set(secretHash, { record, until: now() + (record ? ttlMs : Math.min(ttlMs, 5_000)) });
    }
    return record;
  }

  return {
    peek(secretHash) {
      const hit = cache.get(secretHash);
      return hit && hit.until > now() ? hit.record : undefined;
    },
    lookup(secretHash) {
      const hit = cache.get(secretHash);
      if (hit && hit.until > now()) return Promise.resolve(hit.record);
      let pending = inflight.get(secretHash);
      if (!pending) {
        const created = load(secretHash).finally(() => {
          if (inflight.get(secretHash) === created) inflight.delete(secretHash);
        });
        inflight.set(secretHash, created);
        pending = created;
      }
      return pending;
    },
    async invalidate(secretHash) {
      drop(secretHash);
      await kv.publish(KEY_INVALIDATION_CHANNEL, secretHash);
    },
    touch: (keyId) => lastUsed.touch(keyId),
    flushUsage: () => lastUsed.flush(),
    async close() {
      await stop();
      await lastUsed.close();
    },
  };
}
