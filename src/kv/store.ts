import type { RedisLink } from './redis-link';

/**
 * The key-value port shared by limits, the abuse guard, nonces and cache invalidation.
 * One in-memory implementation for a single process, one over Redis for many instances.
 * Keys are namespaced by the store's prefix, so tests and tenants can share one Redis.
 */
export interface KeyValueStore {
  readonly backend: 'memory' | 'redis';
  /** The Redis connection (for stores that run their own scripts: billing, rate limits); null in memory. */
  readonly redis: RedisLink | null;
  /** The prefix applied to every key, for algorithms that build their own keys on `redis`. */
  readonly prefix: string;
  get(key: string): Promise<string | null>;
  /** Sets a value, with an optional time to live in milliseconds. */
  set(key: string, value: string, ttlMs?: number): Promise<void>;
  /** Sets the value only if the key is absent; true when it was set (single-use nonces). */
  setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean>;
  del(key: string): Promise<void>;
  /** Atomically adds `by` and returns the new value; the TTL is set when the key is created. */
  incrBy(key: string, by: number, ttlMs?: number): Promise<number>;
  /** Remaining time to live in ms; -1 without expiry, -2 when absent. */
  ttlMs(key: string): Promise<number>;
  /** Broadcasts to every instance subscribed to `channel` (including this one). */
  publish(channel: string, message: string): Promise<void>;
  /** Listens on `channel`; returns the function that stops listening. */
  subscribe(channel: string, onMessage: (message: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}
