import { desc, eq } from 'drizzle-orm';
import type { Database } from '../db/database';
import { rateLimitLogs } from '../db/schema';
import type { Logger } from '../log';
import { countRateLimitRefusal } from '../metrics';
import { armedFlush } from '../lifecycle/armed-flush';
import type { RateLimitLog, RateLimitRefusal, RefusalEntry } from './types';

/** The refusal log plus what the routes and shutdown need. */
export interface RefusalLog extends RateLimitLog {
  /** The account's latest `limit` refusals, newest first (pending ones are written first). */
  recent(accountId: string, limit: number): Promise<RefusalEntry[]>;
  close(): Promise<void>;
}

// A flood of refusals must not grow memory without bound while the database is slow.
const MAX_PENDING = 10_000;
const BATCH = 500;

/**
 * Buffers refusals in memory and writes them to rate_limit_logs in batches: on a timer
 * (unref'd, so it never keeps the process alive), on flush() and on close(). The request
 * path only pushes to an array. Writes are chained, so flush() returns after every
 * earlier entry is stored.
 */
export function createRefusalLog(deps: { db: Database; now: () => number; log: Logger; flushMs: number }): RefusalLog {
  let pending: (typeof rateLimitLogs.$inferInsert)[] = [];
  let writing: Promise<void> = Promise.resolve();
  let dropped = 0;

  async function write(rows: (typeof rateLimitLogs.$inferInsert)[]) {
    for (let i = 0; i < rows.length; i += BATCH) {
      try {
        await deps.db.insert(rateLimitLogs).values(rows.slice(i, i + BATCH));
      } catch (error) {
        deps.log.error('rate limit log write failed', { rows: rows.length - i, error: String(error) });
        return;
      }
    }
  }

  function flush(): Promise<void> {
    if (pending.length > 0) {
      const rows = pending;
      pending = [];
      writing = writing.then(() => write(rows));
    }
    if (dropped > 0) {
      deps.log.warn('rate limit log entries dropped (buffer full)', { dropped });
      dropped = 0;
    }
    return writing;
  }

  // Armed by the first refusal queued, not an interval, so an idle svc is not woken for nothing.
  const timer = armedFlush(deps.flushMs, flush, () => pending.length > 0);

  return {
    record(refusal: RateLimitRefusal) {
      countRateLimitRefusal(refusal.type);
      if (pending.length >= MAX_PENDING) {
        dropped++;
        return;
      }
      pending.push({
        accountId: refusal.accountId,
        apiKeyId: refusal.apiKeyId,
        modelId: refusal.modelId,
        tier: refusal.tier,
        type: refusal.type,
        createdAt: new Date(deps.now()),
      });
      timer.arm();
    },
    flush,
    async recent(accountId, limit) {
      await flush();
      const rows = await deps.db
        .select()
        .from(rateLimitLogs)
        .where(eq(rateLimitLogs.accountId, accountId))
        .orderBy(desc(rateLimitLogs.createdAt), desc(rateLimitLogs.id))
        .limit(limit);
      return rows.map((r) => ({
        apiKeyId: r.apiKeyId,
        modelId: r.modelId,
        rateLimitTier: r.tier,
        rateLimitType: r.type,
        timestamp: r.createdAt.toISOString(),
      }));
    },
    async close() {
      timer.stop();
      await flush();
    },
  };
}
