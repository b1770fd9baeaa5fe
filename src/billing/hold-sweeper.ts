import { randomUUID } from 'node:crypto';
import type { RedisLink } from '../kv/redis-link';
import type { Logger } from '../log';
import { REINDEX_HOLDS, SWEEP_HOLDS, UNLOCK } from './redis-scripts';
import { accountKeys, holdIndexKey, scriptRunner } from './redis-store';

/** Accounts visited per sweep round; the rest wait for the next round. */
const ACCOUNTS_PER_ROUND = 1_000;

/** A running sweep; `sweep` runs one round now (tests), `close` stops the timer. */
export interface HoldSweeper {
  sweep(): Promise<number>;
  close(): void;
}

/**
 * Frees expired holds in the background, so the reservation of an instance that crashed
 * mid-request stops holding balance when it expires (`billing.holdTtlMs`), not on the
 * account's next request. Every `intervalMs` one instance (a lock in Redis) reads the index
 * of accounts whose earliest hold has expired, sweeps each account (one script in its own
 * slot), and moves the account's index entry to its next expiry or drops it. An index entry
 * that a reserve changed meanwhile is left alone, so no live hold is ever forgotten.
 */
export function startHoldSweeper(opts: {
  redis: RedisLink;
  prefix: string;
  intervalMs: number;
  now: () => number;
  log: Logger;
}): HoldSweeper {
  const run = scriptRunner(opts.redis);
  const index = holdIndexKey(opts.prefix);
  const lock = `${index}:lock`;

  async function sweep(): Promise<number> {
    const token = randomUUID();
    if ((await opts.redis.send('SET', [lock, token, 'NX', 'PX', String(Math.max(opts.intervalMs, 5_000))])) !== 'OK') return 0;
    let freed = 0;
    try {
      const now = String(opts.now());
      const due = (await opts.redis.send('ZRANGEBYSCORE', [
        index,
        '-inf',
        now,
        'WITHSCORES',
        'LIMIT',
        '0',
        String(ACCOUNTS_PER_ROUND),
      ])) as string[];
      for (let i = 0; i < due.length; i += 2) {
        const accountId = due[i]!;
        const k = accountKeys(opts.prefix, accountId);
        const next = String(await run(SWEEP_HOLDS, [k.hsum, k.hreq, k.hexp], [now]));
        await run(REINDEX_HOLDS, [index], [accountId, due[i + 1]!, next]);
        freed++;
      }
    } finally {
      await run(UNLOCK, [lock], [token]);
    }
    return freed;
  }

  const timer = setInterval(function sweepHolds() {
    sweep().catch((error) => opts.log.warn('billing: hold sweep failed, will retry', { error: String(error) }));
  }, opts.intervalMs);
  timer.unref?.();
  return { sweep, close: () => clearInterval(timer) };
}
