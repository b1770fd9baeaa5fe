import { Type as T, type Static } from '@sinclair/typebox';
import { parseConfigSection } from '../config';
import { applyPatch, LimitTablePatchSchema, PARTNER_LIMITS, STANDARD_LIMITS, type AccountTier, type LimitTable } from './tables';

/**
 * The config's free-form `rateLimits` section: patches over the spec 8.1 tables, and the
 * timings of the refusal log and the per-account settings cache.
 */
export const RateLimitsConfigSchema = T.Object(
  {
    standard: T.Optional(LimitTablePatchSchema),
    partner: T.Optional(LimitTablePatchSchema),
    apiRpm: T.Integer({
      minimum: 0,
      default: 600,
      description: 'Requests per minute per account on authenticated routes not bound to a model (keys, billing, characters, ...)',
    }),
    logFlushMs: T.Integer({ minimum: 10, default: 1_000, description: 'How often refusals are written to rate_limit_logs' }),
    accountCacheMs: T.Integer({ minimum: 0, default: 30_000, description: 'How long an account tier and overrides are cached in process' }),
  },
  { additionalProperties: false },
);

/** The validated `rateLimits` section. */
export type RateLimitsConfig = Static<typeof RateLimitsConfigSchema>;

/** The tables in force for each account tier, after config patches. */
export type TierTables = Record<AccountTier, LimitTable>;

/** Validates `config.rateLimits` (absent means the spec defaults); throws ConfigError naming the field. */
export function parseRateLimitsConfig(raw: Record<string, unknown> | undefined): RateLimitsConfig {
  return parseConfigSection(RateLimitsConfigSchema, raw, 'rateLimits');
}

/** Standard = spec defaults + config; partner = standard + spec partner values + config. */
export function tierTables(config: RateLimitsConfig): TierTables {
  const standard = applyPatch(STANDARD_LIMITS, config.standard);
  return { standard, partner: applyPatch(applyPatch(standard, PARTNER_LIMITS), config.partner) };
}
