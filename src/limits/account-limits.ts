import { Value } from '@sinclair/typebox/value';
import { eq } from 'drizzle-orm';
import type { Database } from '../db/database';
import { accounts } from '../db/schema';
import type { KeyValueStore } from '../kv/store';
import type { Logger } from '../log';
import type { TierTables } from './config';
import { applyPatch, RateLimitOverridesSchema, type AccountTier, type LimitTable, type RateLimitOverrides } from './tables';

/** Channel on which changes of an account's tier or overrides are announced to every instance. */
export const LIMITS_INVALIDATION_CHANNEL = 'limits:accounts';

/** An account's rate-limit settings, with its tier table and overrides merged once. */
export interface AccountLimits {
  tier: AccountTier;
  /** As stored in accounts.rate_limit_overrides (null: none). */
  overrides: RateLimitOverrides | null;
  /** The tier's table with the overrides applied. */
  table: LimitTable;
  models: RateLimitOverrides['models'];
}

/** A change an operator makes: a new tier, and overrides (null clears them). */
export interface AccountLimitsChange {
  tier?: AccountTier;
  overrides?: RateLimitOverrides | null;
}

/** Reads account tiers and overrides with a short in-process cache, so admissions never query the database. */
export interface AccountLimitsCache {
  get(accountId: string): Promise<AccountLimits>;
  /** The cached entry while it is fresh, else undefined (then `get`): an admission's common case, with no promise. */
  peek(accountId: string): AccountLimits | undefined;
  /** Writes a change and drops the account from every instance's cache; null for an unknown account. */
  update(accountId: string, change: AccountLimitsChange): Promise<AccountLimits | null>;
  close(): Promise<void>;
}

/**
 * Creates the cache. Entries live `ttlMs` (misses too: an unknown account gets the standard
 * table); a change is published on the KV store, the same way the key cache is invalidated.
 */
export async function createAccountLimitsCache(deps: {
  db: Database;
  kv: KeyValueStore;
  tables: TierTables;
  log: Logger;
  now: () => number;
  ttlMs: number;
}): Promise<AccountLimitsCache> {
  const cache = new Map<string, { value: AccountLimits; until: number }>();
  const inflight = new Map<string, Promise<AccountLimits>>();
  // Bumped on every invalidation, so a load that raced a change does not cache the old row.
  let generation = 0;

  function settle(accountId: string, tier: AccountTier, stored: unknown): AccountLimits {
    let overrides: RateLimitOverrides | null = null;
    if (stored !== null && stored !== undefined) {
      if (Value.Check(RateLimitOverridesSchema, stored)) overrides = stored;
      else deps.log.warn('ignoring malformed accounts.rate_limit_overrides', { accountId });
    }
    return { tier, overrides, table: applyPatch(deps.tables[tier], overrides ?? undefined), models: overrides?.models };
  }

  async function load(accountId: string): Promise<AccountLimits> {
    const startedAt = generation;
    const [row] = await deps.db
      .select({ tier: accounts.tier, overrides: accounts.rateLimitOverrides })
      .from(accounts)
      .where(eq(accounts.id, accountId))
      .limit(1);
    const value = settle(accountId, row?.tier ?? 'standard', row?.overrides);
    if (startedAt === generation) {
      if (cache.size > 100_000) cache.clear();
      cache.set(accountId, { value, until: deps.now() + deps.ttlMs });
    }
    return value;
  }

  function drop(accountId: string) {
    generation++;
    cache.delete(accountId);
    inflight.delete(accountId);
  }
  const stop = await deps.kv.subscribe(LIMITS_INVALIDATION_CHANNEL, drop);

  return {
    peek(accountId) {
      const hit = cache.get(accountId);
      return hit && hit.until > deps.now() ? hit.value : undefined;
    },
    get(accountId) {
      const hit = cache.get(accountId);
      if (hit && hit.until > deps.now()) return Promise.resolve(hit.value);
      let pending = inflight.get(accountId);
      if (!pending) {
        const created = load(accountId).finally(() => {
          if (inflight.get(accountId) === created) inflight.delete(accountId);
        });
        inflight.set(accountId, created);
        pending = created;
      }
      return pending;
    },
    async update(accountId, change) {
      const set: { tier?: AccountTier; rateLimitOverrides?: RateLimitOverrides | null } = {};
      if (change.tier !== undefined) set.tier = change.tier;
      if (change.overrides !== undefined) set.rateLimitOverrides = change.overrides;
      const where = eq(accounts.id, accountId);
      const columns = { tier: accounts.tier, overrides: accounts.rateLimitOverrides };
      const [row] = Object.keys(set).length
        ? await deps.db.update(accounts).set(set).where(where).returning(columns)
        : await deps.db.select(columns).from(accounts).where(where).limit(1);
      if (!row) return null;
      drop(accountId);
      await deps.kv.publish(LIMITS_INVALIDATION_CHANNEL, accountId);
      return settle(accountId, row.tier, row.overrides);
    },
    async close() {
      await stop();
    },
  };
}
