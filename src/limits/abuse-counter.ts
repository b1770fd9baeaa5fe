import { luaScript, runScript } from '../kv/scripts';
import type { KeyValueStore } from '../kv/store';

/** What one counted failure did: started a block (`started`), or found one (`blockedUntil` > 0), or neither. */
export interface FailureCount {
  started: boolean;
  /** Epoch ms at which the identity's block ends; 0 when it is not blocked. */
  blockedUntil: number;
}

/** The window and block of the guard, in ms, and the failures a window may hold before a block. */
export interface FailureWindow {
  windowMs: number;
  blockMs: number;
  maxFailures: number;
}

/**
 * Counts one failure of an identity over a sliding window (this bucket plus the weighted
 * previous one) and starts its block when the count passes the limit, in one atomic step:
 * a failure during a block is not counted, exactly one failure starts a block however many
 * arrive at once, and the block consumes the failures that caused it.
 */
export type FailureCounter = (identity: string, now: number) => Promise<FailureCount>;

// KEYS: this bucket, the previous bucket, the block. ARGV: the previous bucket's weight over
// the window (integers, so the arithmetic is exact), the limit, the bucket's TTL, the block's
// TTL, now, the block's end. Returns {started, blocked until}.
const COUNT_FAILURE = luaScript(`local blocked = tonumber(redis.call('GET', KEYS[3]) or '0')
if blocked > tonumber(ARGV[5]) then return {0, blocked} end
local current = redis.call('INCR', KEYS[1])
if current == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[4]) end
local previous = tonumber(redis.call('GET', KEYS[2]) or '0')
if current + math.floor(previous * tonumber(ARGV[1]) / tonumber(ARGV[2])) <= tonumber(ARGV[3]) then return {0, 0} end
redis.call('SET', KEYS[3], ARGV[7], 'PX', ARGV[6])
redis.call('DEL', KEYS[1], KEYS[2])
return {1, tonumber(ARGV[7])}`);

/** An identity's failures in process: the counts of its current and previous buckets, and its block's end. */
interface MemoryEntry {
  bucket: number;
  current: number;
  previous: number;
  blockedUntil: number;
}

/** In process, state per store object, so instances sharing one store (tests) share counts. */
const memoryStates = new WeakMap<KeyValueStore, Map<string, MemoryEntry>>();

/** The part of the previous bucket that still falls in the sliding window. */
function weighted(previous: number, now: number, w: FailureWindow): number {
  return Math.floor((previous * (w.windowMs - (now % w.windowMs))) / w.windowMs);
}

/** The counter over `kv`: one Lua script on Redis (keys hash-tagged by identity, so Cluster-safe), one synchronous step in memory. */
export function failureCounter(kv: KeyValueStore, w: FailureWindow): FailureCounter {
  const link = kv.redis;
  if (link) {
    return async function countOnRedis(identity, now) {
      const bucket = Math.floor(now / w.windowMs);
      const key = (suffix: string) => `${kv.prefix}abuse:{${identity}}:${suffix}`;
      const reply = (await runScript(
        link,
        COUNT_FAILURE,
        [key(`f:${bucket}`), key(`f:${bucket - 1}`), key('b')],
        [
          String(w.windowMs - (now % w.windowMs)),
          String(w.windowMs),
          String(w.maxFailures),
          String(2 * w.windowMs),
          String(now),
          String(w.blockMs),
          String(now + w.blockMs),
        ],
      )) as [number, number];
      return { started: Number(reply[0]) === 1, blockedUntil: Number(reply[1]) };
    };
  }
  let state = memoryStates.get(kv);
  if (!state) memoryStates.set(kv, (state = new Map()));
  const entries = state;
  return async function countInMemory(identity, now) {
    const bucket = Math.floor(now / w.windowMs);
    if (entries.size >= 10_000) for (const [id, e] of entries) if (e.bucket < bucket - 1 && e.blockedUntil <= now) entries.delete(id);
    let e = entries.get(identity);
    if (!e) entries.set(identity, (e = { bucket, current: 0, previous: 0, blockedUntil: 0 }));
    if (e.blockedUntil > now) return { started: false, blockedUntil: e.blockedUntil };
    if (e.bucket !== bucket) {
      e.previous = e.bucket === bucket - 1 ? e.current : 0;
      e.current = 0;
      e.bucket = bucket;
    }
    e.current++;
    if (e.current + weighted(e.previous, now, w) <= w.maxFailures) return { started: false, blockedUntil: 0 };
    e.blockedUntil = now + w.blockMs;
    e.current = e.previous = 0;
    return { started: true, blockedUntil: e.blockedUntil };
  };
}
