import { randomUUID } from 'node:crypto';
import type { RedisLink } from '../kv/redis-link';
import type { Logger } from '../log';
import { REINDEX_HOLDS, SWEEP_HOLDS, UNLOCK } from './redis-scripts';
import { accountKeys, holdIndexKey, scriptRunner } from './redis-store';

/** Accounts visited per sweep round; the rest wait for the next round. */
const ACCOUNTS_PER_ROUND = 1_000;

/** (member, score) pairs of a WITHSCORES reply: flat over RESP2 (ioredis), pairs over RESP3 (Bun), scores as Redis formats them. */
function scorePairs(reply: unknown): [string, string][] {
  const items = reply as unknown[];
  if (items.length > 0 && Array.isArray(items[0])) return (items as [string, number | string][]).map(([m, s]) => [m, formatScore(s)]);
  const pairs: [string, string][] = [];
  for (let i = 0; i + 1 < items.length; i += 2) pairs.push([String(items[i]), formatScore(items[i + 1] as string)]);
  return pairs;
}

/** A score as ZSCORE returns it inside a script: expiries are integers, written without exponent. */
const formatScore = (s: number | string) => (typeof s === 'number' ? BigInt(Math.round(s)).toString() : s);

/** A running sweep; `sweep` runs one round now (tests), `close` stops the timer. */
export interface HoldSweeper {
  /** One round now; resolves to the number of accounts visited (0 when another instance holds the lock). */
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
    let visited = 0;
    try {
      const now = String(opts.now());
      const due = await opts.redis.send('ZRANGEBYSCORE', [index, '-inf', now, 'WITHSCORES', 'LIMIT', '0', String(ACCOUNTS_PER_ROUND)]);
      for (const [accountId, score] of scorePairs(due)) {
        const k = accountKeys(opts.prefix, accountId);
        const next = String(await run(SWEEP_HOLDS, [k.hsum, k.hreq, k.hexp], [now]));
        await run(REINDEX_HOLDS, [index], [accountId, score, next]);
        visited++;
      }
    } finally {
      await run(UNLOCK, [lock], [token]);
    }
    return visited;
  }

  const timer = setInterval(function sweepHolds() {
    sweep().catch((error) => opts.log.warn('billing: hold sweep failed, will retry', { error: String(error) }));
  }, opts.intervalMs);
  timer.unref?.();
  return { sweep, close: () => clearInterval(timer) };
}
