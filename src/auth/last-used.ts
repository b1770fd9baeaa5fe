import { and, inArray, isNull, lt, or } from 'drizzle-orm';
import type { Database } from '../db/database';
import { apiKeys } from '../db/schema';

/** Records key use in memory and writes `last_used_at` in batches, off the request path. */
export interface LastUsedTracker {
  /** Notes that a key was used now; a Set insert, no I/O. */
  touch(keyId: string): void;
  /** Writes every pending key's last use in one UPDATE (also runs on a timer and at close). */
  flush(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Creates the tracker. A busy key is written once per interval instead of once per request;
 * `last_used_at` is therefore accurate to `intervalMs` (5 s by default), which is what a
 * "last used" column in a key list needs.
 */
export function createLastUsedTracker(db: Database, opts: { intervalMs?: number; now?: () => number } = {}): LastUsedTracker {
  const now = opts.now ?? Date.now;
  let pending = new Set<string>();
  let flushing: Promise<void> = Promise.resolve();

  async function write(ids: string[]) {
    const at = new Date(now());
    // The lt() guard keeps the column monotonic when two instances flush out of order.
    await db
      .update(apiKeys)
      .set({ lastUsedAt: at })
      .where(and(inArray(apiKeys.id, ids), or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, at))));
  }

  function flush(): Promise<void> {
    if (pending.size === 0) return flushing;
    const ids = [...pending];
    pending = new Set();
    flushing = flushing
      .then(() => write(ids))
      .catch(() => {
        // A failed write only loses a "last used" timestamp; the next use records it again.
      });
    return flushing;
  }

  const timer = setInterval(function flushLastUsed() {
    void flush();
  }, opts.intervalMs ?? 5_000);
  timer.unref?.();

  return {
    touch(keyId) {
      pending.add(keyId);
    },
    flush,
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}
