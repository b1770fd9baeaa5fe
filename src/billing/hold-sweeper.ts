import { randomUUID } from 'node:crypto';
import type { RedisLink } from '../kv/redis-link';
import { runScript, type LuaScript } from '../kv/scripts';
import type { Logger } from '../log';
import { INDEX_HOLD, REINDEX_HOLDS, SWEEP_HOLDS, UNLOCK } from './redis-scripts';
import { accountKeys, holdIndexKey } from './redis-calls';

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
 * slot, which also leaves the account's next expiry in its index marker), and moves the
 * account's index entry to that expiry or drops it. An index entry that a reserve changed
 * meanwhile is left alone, and a reserve between the two steps sees the marker the first
 * step left (absent, or the expiry the entry moves to), so no live hold is ever forgotten.
 */
export function startHoldSweeper(opts: {
  redis: RedisLink;
  prefix: string;
  intervalMs: number;
  now: () => number;
  log: Logger;
}): HoldSweeper {
  const run = (script: LuaScript, keys: string[], args: string[]) => runScript(opts.redis, script, keys, args);
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
        const holds = [k.hsum, k.hreq, k.hexp, k.ix];
        const next = String(await run(SWEEP_HOLDS, holds, [now]));
        const dropped = Number(await run(REINDEX_HOLDS, [index], [accountId, score, next])) === 1 && next === '-1';
        if (dropped) {
          // A hold taken between the two steps, whose own index write came in first and changed
          // nothing (its instance's clock behind ours), would be left out: look once more.
          const late = String(await run(SWEEP_HOLDS, holds, [now]));
          if (late !== '-1') await run(INDEX_HOLD, [index], [accountId, late, now]);
        }
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
