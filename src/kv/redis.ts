import type { Config } from '../config';
import { parseRedisConfig, type RedisConfig } from './redis-config';
import { connectRedis, type RedisLink } from './redis-link';
import { luaScript, runScript } from './scripts';
import type { KeyValueStore } from './store';
import { KvUnavailableError } from './unavailable';

// INCRBY and PEXPIRE in one script, so a key never outlives its window if we crash between them.
const INCR_WITH_TTL = luaScript(`local v = redis.call('INCRBY', KEYS[1], ARGV[1])
if v == tonumber(ARGV[1]) and tonumber(ARGV[2]) > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return v`);

/** Builds the shared store over a link to Redis (single node or cluster, detected). */
export function redisStoreOver(link: RedisLink, prefix = 'svc:'): KeyValueStore {
  return {
    backend: 'redis',
    redis: link,
    prefix,
    get: (key) => link.send('GET', [prefix + key]) as Promise<string | null>,
    async set(key, value, ttlMs) {
      const args = [prefix + key, value];
      if (ttlMs && ttlMs > 0) args.push('PX', String(Math.ceil(ttlMs)));
      await link.send('SET', args);
    },
    async setIfAbsent(key, value, ttlMs) {
      const reply = await link.send('SET', [prefix + key, value, 'PX', String(Math.ceil(ttlMs)), 'NX']);
      return reply === 'OK';
    },
    async del(key) {
      await link.send('DEL', [prefix + key]);
    },
    async incrBy(key, by, ttlMs) {
      // EVALSHA: the script's text goes to Redis once, not with every failure the abuse guard counts.
      const reply = await runScript(link, INCR_WITH_TTL, [prefix + key], [String(by), String(Math.ceil(ttlMs ?? 0))]);
      return Number(reply);
    },
    async ttlMs(key) {
      return Number(await link.send('PTTL', [prefix + key]));
    },
    async publish(channel, message) {
      // Best effort: an announcement lost in an outage is covered by the caches' own expiry.
      await link.publish(prefix + channel, message).catch((error) => {
        if (!(error instanceof KvUnavailableError)) throw error;
      });
    },
    subscribe: (channel, onMessage) => link.subscribe(prefix + channel, onMessage),
    close: () => link.close(),
  };
}

/** Connects to Redis at `url` and returns the shared store. */
export async function createRedisStore(url: string, opts: { prefix?: string; redis?: Partial<RedisConfig> } = {}): Promise<KeyValueStore> {
  const link = await connectRedis(url, parseRedisConfig({ redis: opts.redis }));
  return redisStoreOver(link, opts.prefix);
}

/** Opens the configured store: Redis when REDIS_URL is set, else in memory. */
export async function openKeyValueStore(
  config: Pick<Config, 'redisUrl'> & Partial<Pick<Config, 'redis'>>,
  prefix?: string,
): Promise<KeyValueStore> {
  // Validated even without Redis, so a broken `redis` section stops the start either way.
  const redis = parseRedisConfig(config);
  if (config.redisUrl) return createRedisStore(config.redisUrl, { prefix, redis });
  const { createMemoryStore } = await import('./memory');
  return createMemoryStore({ prefix });
}
