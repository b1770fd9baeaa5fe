import type { TSchema } from '@sinclair/typebox';
import { parseSearchConfig, SearchConfigSchema } from '../providers/search/config';
import { AugmentConfigSchema, parseAugmentConfig } from './augment/config';
import { parseWalletsConfig, WalletsConfigSchema } from './auth/wallet-config';
import { BillingConfigSchema, parseBillingConfig } from './billing/config';
import type { Config } from './config';
import { imagesConfigOf, ImagesConfigSchema } from './images/classifier';
import { jobsConfigOf, JobsConfigSchema } from './jobs/config';
import { parseRedisConfig, RedisConfigSchema } from './kv/redis-config';
import { AbuseGuardConfigSchema, parseAbuseGuardConfig } from './limits/abuse-guard';
import { parseRateLimitsConfig, RateLimitsConfigSchema } from './limits/config';
import { parseRpcConfig, RpcConfigSchema } from './rpc/config';
import { responsesConfigOf, ResponsesConfigSchema } from './responses/config';
import { ObservabilityConfigSchema, observabilityConfigOf } from './request-log/config';

/** Each section's schema, by its key in the file (the configuration reference walks them). */
export const CONFIG_SECTION_SCHEMAS: Record<string, TSchema> = {
  search: SearchConfigSchema,
  rateLimits: RateLimitsConfigSchema,
  abuseGuard: AbuseGuardConfigSchema,
  billing: BillingConfigSchema,
  redis: RedisConfigSchema,
  wallets: WalletsConfigSchema,
  images: ImagesConfigSchema,
  rpc: RpcConfigSchema,
  augment: AugmentConfigSchema,
  jobs: JobsConfigSchema,
  responses: ResponsesConfigSchema,
  observability: ObservabilityConfigSchema,
};

/**
 * Validates every free-form section of the config with its owner's schema (`loadConfig`'s
 * `checkSections`), so a mistake in any of them stops the start before the database is
 * created, not when the section's owner is built. A new section adds its parser here.
 */
export function checkConfigSections(config: Config): void {
  parseSearchConfig(config.search);
  parseRateLimitsConfig(config.rateLimits);
  parseAbuseGuardConfig(config.abuseGuard);
  parseBillingConfig(config);
  parseRedisConfig(config);
  parseWalletsConfig(config);
  imagesConfigOf(config);
  parseRpcConfig(config.rpc);
  parseAugmentConfig(config);
  jobsConfigOf(config);
  responsesConfigOf(config);
  observabilityConfigOf(config);
}
