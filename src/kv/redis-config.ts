import { Type as T, type Static } from '@sinclair/typebox';
import { parseConfigSection, type Config } from '../config';

/** The `redis` config section: how fast a request gives up on Redis, and how reconnection goes. */
export const RedisConfigSchema = T.Object(
  {
    /** A command without an answer for this long marks the connection dead (it is rebuilt); requests get 503 meanwhile. */
    commandTimeoutMs: T.Integer({ minimum: 50, maximum: 60_000, default: 1_500 }),
    /** One connection attempt gives up after this long. */
    connectTimeoutMs: T.Integer({ minimum: 50, maximum: 60_000, default: 1_000 }),
    /** Longest pause between two reconnection attempts (they start at 50 ms and double). Attempts never stop. */
    reconnectMaxDelayMs: T.Integer({ minimum: 10, maximum: 60_000, default: 1_000 }),
    /** The Retry-After (seconds) of the 503 sent while Redis is unreachable. */
    retryAfterSeconds: T.Integer({ minimum: 1, maximum: 3_600, default: 2 }),
  },
  { default: {} },
);

/** The validated `redis` section. */
export type RedisConfig = Static<typeof RedisConfigSchema>;

/** Validates `config.redis` with defaults; throws ConfigError naming the bad field. */
export function parseRedisConfig(config: Partial<Pick<Config, 'redis'>>): RedisConfig {
  return parseConfigSection(RedisConfigSchema, config.redis, 'redis');
}
