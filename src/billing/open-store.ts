import type { KeyValueStore } from '../kv/store';
import type { LimitStore } from '../limits/store';
import type { Logger } from '../log';
import type { BillingConfig } from './config';
import { startHoldSweeper } from './hold-sweeper';
import { LedgerOutbox } from './ledger-outbox';
import { createMemoryBillingStore } from './memory-store';
import { createRedisBillingStore } from './redis-store';
import type { BillingStore } from './store';

/**
 * The billing store of the configured KV (Redis shared by instances, or memory), with this
 * instance's ledger outbox (journaled when `billing.journalDir` is set) and, on Redis, the
 * background sweep of expired holds. `close` stops all of it. The rate limiter's counts go
 * to `limits` in memory; on Redis the billing scripts count them in the limiter's keys.
 */
export function openBillingStore(
  deps: { kv: KeyValueStore; now: () => number; log: Logger; limits?: LimitStore | null },
  cfg: BillingConfig,
): BillingStore {
  const outbox = new LedgerOutbox(cfg.journalDir);
  if (!deps.kv.redis) {
    const store = createMemoryBillingStore({ now: deps.now, outbox, limits: deps.limits });
    return { ...store, close: () => outbox.close() };
  }
  // The billing scripts count the rate limits in the limiter's Redis keys: its counters must be there too.
  if (deps.limits?.backend === 'memory') throw new Error('billing: on Redis, the rate limits must be counted in Redis as well');
  const store = createRedisBillingStore(deps.kv.redis, deps.kv.prefix, outbox, {
    settleBatchMs: cfg.settleBatchMs,
    settleBatchMax: cfg.settleBatchMax,
    log: deps.log,
  });
  const sweeper = startHoldSweeper({
    redis: deps.kv.redis,
    prefix: deps.kv.prefix,
    intervalMs: cfg.holdSweepIntervalMs,
    now: deps.now,
    log: deps.log,
  });
  return {
    ...store,
    close() {
      sweeper.close();
      store.close();
      outbox.close();
    },
  };
}
