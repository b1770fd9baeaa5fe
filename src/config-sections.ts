import { parseSearchConfig } from '../providers/search/config';
import { parseWalletsConfig } from './auth/wallet-config';
import { parseBillingConfig } from './billing/config';
import type { Config } from './config';
import { imagesConfigOf } from './images/classifier';
import { parseRedisConfig } from './kv/redis-config';
import { parseAbuseGuardConfig } from './limits/abuse-guard';
import { parseRateLimitsConfig } from './limits/config';

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
}
