import type { Config } from '../config';
import type { Storage } from '../db/database';
import type { Caller } from '../http/request-context';
import { badRequest, retryAfterSeconds, tooManyRequests } from '../http/errors';
import type { KeyValueStore } from '../kv/store';
import type { Logger } from '../log';
import type { ModelEntry } from '../models/catalog';
import { createAccountLimitsCache, type AccountLimits } from './account-limits';
import { parseRateLimitsConfig, tierTables } from './config';
import { rateLimitHeaders } from './headers';
import { endpointId, headersOnly } from './types';
import { createMemoryLimitStore } from './memory-store';
import { createRedisLimitStore } from './redis-store';
import { createRefusalLog } from './refusal-log';
import type { AdmitResult, LimitKey, LimitStore, TokenCorrection } from './store';
import { modelLimits, type VideoOperation } from './tables';
import type { LimitPlan, RateLimitAdmission, RateLimiter, RouteLimit } from './types';

/** The 400 for a request whose prompt plus max_tokens exceeds the model's tokens-per-minute limit. */
function tooLargeForTpm(tokens: number, tpm: number) {
  const message = `max_tokens is too large: the prompt and max_tokens (or max_completion_tokens) come to ${tokens} tokens, above this model's limit of ${tpm} tokens per minute`;
  return badRequest(message, [{ path: ['max_tokens'], message }]);
}

/** The admission of a call with a token limit: its correction, once, in the window the tokens were reserved in. */
class TokenAdmission implements RateLimitAdmission {
  private open = true;

  constructor(
    readonly headers: Record<string, string>,
    private readonly store: LimitStore,
    private readonly key: LimitKey,
    private readonly window: number,
    private readonly reserve: number,
  ) {}

  tokenCorrection(actualTokens: number): TokenCorrection | null {
    if (!this.open) return null;
    this.open = false;
    const delta = Math.max(0, Math.ceil(Number.isFinite(actualTokens) ? actualTokens : this.reserve)) - this.reserve;
    return delta === 0 ? null : { key: this.key, window: this.window, delta };
  }

  async settleTokens(actualTokens: number): Promise<void> {
    const c = this.tokenCorrection(actualTokens);
    if (c) await this.store.correctTokens(c.key, c.window, c.delta);
  }
}

/**
 * Builds the rate limiter of spec 8.1 from config: the tier tables (validated here, so a
 * bad `rateLimits` section stops the start), per-account settings cached in process, the
 * counters on Redis when the KV store is Redis (else in memory, with the injected clock),
 * and the batched refusal log.
 */
export async function createRateLimiter(deps: {
  config: Config;
  storage: Storage;
  kv: KeyValueStore;
  now: () => number;
  log: Logger;
}): Promise<RateLimiter> {
  const config = parseRateLimitsConfig(deps.config.rateLimits);
  const tables = tierTables(config);
  // On Redis, the same store (client and prefix) as the billing store, which folds these counts into its scripts.
  const store = deps.kv.redis ? createRedisLimitStore(deps.kv.redis, deps.kv.prefix) : createMemoryLimitStore({ now: deps.now });
  const accounts = await createAccountLimitsCache({
    db: deps.storage.db,
    kv: deps.kv,
    tables,
    log: deps.log,
    now: deps.now,
    ttlMs: config.accountCacheMs,
  });
  const log = createRefusalLog({ db: deps.storage.db, now: deps.now, log: deps.log, flushMs: config.logFlushMs });
  const routeLimits = { rpm: config.apiRpm, tpm: null };

  async function planModel(caller: Caller, model: ModelEntry, video: VideoOperation, reservedTokens: number): Promise<LimitPlan> {
    return planModelOf(await accounts.get(caller.accountId), caller, model, video, reservedTokens);
  }

  function planModelOf(
    account: AccountLimits,
    caller: Caller,
    model: ModelEntry,
    video: VideoOperation,
    reservedTokens: number,
  ): LimitPlan {
    const limits = modelLimits(account.table, account.models, model, video);
    const reserve = limits.tpm === null || !(reservedTokens > 0) ? 0 : Math.ceil(reservedTokens);
    // A request larger than a whole minute's tokens can never be admitted: a 429 would have
    // the client retry forever, so it is a 400 that says which field to lower.
    if (limits.tpm !== null && reserve > limits.tpm) throw tooLargeForTpm(reserve, limits.tpm);
    const scope = video === 'retrieve' && model.type === 'video' ? `${model.id}:retrieve` : model.id;
    return {
      key: { account: caller.accountId, scope },
      rpm: limits.rpm,
      tokens: limits.tpm === null ? null : { limit: limits.tpm, reserve },
      caller,
      limits,
      model,
      path: '',
      tier: account.tier,
    };
  }

  async function planRoute(caller: Caller, path: string, route?: RouteLimit): Promise<LimitPlan> {
    return planRouteOf(await accounts.get(caller.accountId), caller, path, route);
  }

  function planRouteOf(account: AccountLimits, caller: Caller, path: string, route?: RouteLimit): LimitPlan {
    const limits = route ? { rpm: route.rpm, tpm: null } : routeLimits;
    return {
      key: { account: caller.accountId, scope: route ? route.scope : 'api' },
      rpm: limits.rpm,
      tokens: null,
      caller,
      limits,
      model: null,
      path,
      tier: account.tier,
    };
  }

  function refuse(plan: LimitPlan, result: AdmitResult, requestId: string, headers: Record<string, string>): never {
    const { caller, model } = plan;
    const type = result.refused!;
    log.record({
      accountId: caller.accountId,
      apiKeyId: caller.apiKey?.id ?? null,
      modelId: model ? model.id : endpointId(plan.path),
      tier: plan.tier,
      type,
    });
    deps.log.debug('rate limit refused', model ? { requestId, model: model.id, type } : { requestId, path: plan.path });
    const what = type === 'TPM' ? `${plan.limits.tpm} tokens` : `${plan.limits.rpm} requests`;
    const wait = retryAfterSeconds(result.resetAt - result.at);
    const message = model
      ? `Rate limit exceeded: ${what} per minute for model ${model.id}; retry in ${wait} s`
      : `Rate limit exceeded: ${what} per minute; retry in ${wait} s`;
    throw tooManyRequests(message, headers, result.resetAt - result.at);
  }

  function conclude(plan: LimitPlan, result: AdmitResult, requestId: string, headers: Record<string, string>): RateLimitAdmission {
    rateLimitHeaders(plan.limits, result, headers);
    if (result.refused) refuse(plan, result, requestId, headers);
    return plan.tokens ? new TokenAdmission(headers, store, plan.key, result.window, plan.tokens.reserve) : headersOnly(headers);
  }

  async function admit(plan: LimitPlan, requestId: string): Promise<RateLimitAdmission> {
    return conclude(plan, await store.admit(plan.key, plan.rpm, plan.tokens), requestId, {});
  }

  return {
    admitRoute: async (caller, path, requestId) => (await admit(await planRoute(caller, path), requestId)).headers,
    admitModel: async (caller, model, reservedTokens, requestId) =>
      admit(await planModel(caller, model, 'queue', reservedTokens), requestId),
    admitVideo: async (caller, model, operation, requestId) => admit(await planModel(caller, model, operation, 0), requestId),
    store,
    // With the account's limits cached (the common case) the plan is made at once: no promise per admission.
    plan(caller, model, path, reservedTokens, route) {
      const account = accounts.peek(caller.accountId);
      if (account === undefined) return model ? planModel(caller, model, 'queue', reservedTokens) : planRoute(caller, path, route);
      return model ? planModelOf(account, caller, model, 'queue', reservedTokens) : planRouteOf(account, caller, path, route);
    },
    conclude,
    async limitsFor(accountId) {
      const account = await accounts.get(accountId);
      return { tier: account.tier, of: (model, video) => modelLimits(account.table, account.models, model, video) };
    },
    updateAccount: (accountId, change) => accounts.update(accountId, change),
    refusals: (accountId, limit) => log.recent(accountId, limit),
    log,
    async close() {
      await log.close();
      await accounts.close();
      await store.close();
    },
  };
}
