import { RedisClient } from 'bun';
import type { KeyValueStore } from './store';

// INCRBY and PEXPIRE in one script, so a key never outlives its window if we crash between them.
const INCR_WITH_TTL = `local v = redis.call('INCRBY', KEYS[1], ARGV[1])
if v == tonumber(ARGV[1]) and tonumber(ARGV[2]) > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return v`;

/** Connects to Redis at `url` and returns the shared store. Subscriptions use a second connection. */
export async function createRedisStore(url: string, opts: { prefix?: string } = {}): Promise<KeyValueStore> {
  const prefix = opts.prefix ?? 'svc:';
  const client = new RedisClient(url, { autoReconnect: true, enableOfflineQueue: true });
  await client.connect();
  let subscriber: RedisClient | null = null;

  return {
    backend: 'redis',
    redis: client,
    prefix,
    get: (key) => client.get(prefix + key),
    async set(key, value, ttlMs) {
      const args = [prefix + key, value];
      if (ttlMs && ttlMs > 0) args.push('PX', String(Math.ceil(ttlMs)));
      await client.send('SET', args);
    },
    async setIfAbsent(key, value, ttlMs) {
      const reply = await client.send('SET', [prefix + key, value, 'PX', String(Math.ceil(ttlMs)), 'NX']);
      return reply === 'OK';
    },
    async del(key) {
      await client.del(prefix + key);
    },
    async incrBy(key, by, ttlMs) {
      const reply = await client.send('EVAL', [INCR_WITH_TTL, '1', prefix + key, String(by), String(Math.ceil(ttlMs ?? 0))]);
      return Number(reply);
    },
    async ttlMs(key) {
      return Number(await client.send('PTTL', [prefix + key]));
    },
    async publish(channel, message) {
      await client.publish(prefix + channel, message);
    },
    async subscribe(channel, onMessage) {
      subscriber ??= await client.duplicate();
      const listener = (message: string) => onMessage(message);
      await subscriber.subscribe(prefix + channel, listener);
      return async () => {
        await subscriber?.unsubscribe(prefix + channel, listener);
      };
    },
    async close() {
      subscriber?.close();
      client.close();
    },
  };
}

/** Opens the configured store: Redis when REDIS_URL is set, else in memory. */
export async function openKeyValueStore(config: { redisUrl?: string }, prefix?: string): Promise<KeyValueStore> {
  if (config.redisUrl) return createRedisStore(config.redisUrl, { prefix });
  const { createMemoryStore } = await import('./memory');
  return createMemoryStore({ prefix });
}
