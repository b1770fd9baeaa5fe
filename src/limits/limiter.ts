import type { Config } from '../config';
import type { Storage } from '../db/database';
import type { Caller } from '../http/request-context';
import { badRequest, retryAfterSeconds, tooManyRequests } from '../http/errors';
import type { KeyValueStore } from '../kv/store';
import type { Logger } from '../log';
import type { ModelEntry } from '../models/catalog';
import { createAccountLimitsCache } from './account-limits';
import { parseRateLimitsConfig, tierTables } from './config';
import { rateLimitHeaders } from './headers';
import { endpointId } from './types';
import { createMemoryLimitStore } from './memory-store';
import { createRedisLimitStore } from './redis-store';
import { createRefusalLog } from './refusal-log';
import type { LimitStore } from './store';
import { modelLimits, type VideoOperation } from './tables';
import type { RateLimitAdmission, RateLimiter } from './types';

/** The 400 for a request whose prompt plus max_tokens exceeds the model's tokens-per-minute limit. */
function tooLargeForTpm(tokens: number, tpm: number) {
  const message = `max_tokens is too large: the prompt and max_tokens (or max_completion_tokens) come to ${tokens} tokens, above this model's limit of ${tpm} tokens per minute`;
  return badRequest(message, [{ path: ['max_tokens'], message }]);
}

/**
 * Builds the rate limiter of spec 8.1 from config: the tier tables (validated here, so a
 * bad `rateLimits` section stops the start), per-account settings cached in process, the
 * counters on Redis when the KV store is Redis (else in memory, with the injected clock),
 * and the batched refusal log.
 */
export async function createRateLimiter(
  deps: { config: Config; storage: Storage; kv: KeyValueStore; now: () => number; log: Logger },
  opts: { store?: LimitStore } = {},
): Promise<RateLimiter> {
  const config = parseRateLimitsConfig(deps.config.rateLimits);
  const tables = tierTables(config);
  const store =
    opts.store ?? (deps.kv.redis ? createRedisLimitStore(deps.kv.redis, deps.kv.prefix) : createMemoryLimitStore({ now: deps.now }));
  const accounts = await createAccountLimitsCache({
    db: deps.storage.db,
    kv: deps.kv,
    tables,
    log: deps.log,
    now: deps.now,
    ttlMs: config.accountCacheMs,
  });
  const log = createRefusalLog({ db: deps.storage.db, now: deps.now, log: deps.log, flushMs: config.logFlushMs });

  async function admit(
    caller: Caller,
    model: ModelEntry,
    video: VideoOperation,
    reservedTokens: number,
    requestId: string,
  ): Promise<RateLimitAdmission> {
    const account = await accounts.get(caller.accountId);
    const limits = modelLimits(account.table, account.models, model, video);
    const reserve = limits.tpm === null || !(reservedTokens > 0) ? 0 : Math.ceil(reservedTokens);
    // A request larger than a whole minute's tokens can never be admitted: a 429 would have
    // the client retry forever, so it is a 400 that says which field to lower.
    if (limits.tpm !== null && reserve > limits.tpm) throw tooLargeForTpm(reserve, limits.tpm);
    const key =
      video === 'retrieve' && model.type === 'video' ? `${caller.accountId}:${model.id}:retrieve` : `${caller.accountId}:${model.id}`;
    const result = await store.admit(key, limits.rpm, limits.tpm === null ? null : { limit: limits.tpm, reserve });
    const headers = rateLimitHeaders(limits, result);
    if (result.refused) {
      log.record({
        accountId: caller.accountId,
        apiKeyId: caller.apiKey?.id ?? null,
        modelId: model.id,
        tier: account.tier,
        type: result.refused,
      });
      deps.log.debug('rate limit refused', { requestId, model: model.id, type: result.refused });
      const what = result.refused === 'TPM' ? `${limits.tpm} tokens` : `${limits.rpm} requests`;
      const wait = retryAfterSeconds(result.resetAt - result.at);
      throw tooManyRequests(
        `Rate limit exceeded: ${what} per minute for model ${model.id}; retry in ${wait} s`,
        headers,
        result.resetAt - result.at,
      );
    }
    let open = limits.tpm !== null;
    return {
      headers,
      async settleTokens(actualTokens) {
        if (!open) return;
        open = false;
        const delta = Math.max(0, Math.ceil(Number.isFinite(actualTokens) ? actualTokens : reserve)) - reserve;
        if (delta !== 0) await store.correctTokens(key, result.window, delta);
      },
    };
  }

  const routeLimits = { rpm: config.apiRpm, tpm: null };

  async function admitRoute(caller: Caller, path: string, requestId: string): Promise<Record<string, string>> {
    const result = await store.admit(`${caller.accountId}:api`, routeLimits.rpm, null);
    const headers = rateLimitHeaders(routeLimits, result);
    if (!result.refused) return headers;
    const account = await accounts.get(caller.accountId);
    log.record({
      accountId: caller.accountId,
      apiKeyId: caller.apiKey?.id ?? null,
      modelId: endpointId(path),
      tier: account.tier,
      type: 'RPM',
    });
    deps.log.debug('rate limit refused', { requestId, path });
    const wait = retryAfterSeconds(result.resetAt - result.at);
    throw tooManyRequests(
      `Rate limit exceeded: ${routeLimits.rpm} requests per minute; retry in ${wait} s`,
      headers,
      result.resetAt - result.at,
    );
  }

  return {
    admitRoute,
    admitModel: (caller, model, reservedTokens, requestId) => admit(caller, model, 'queue', reservedTokens, requestId),
    admitVideo: (caller, model, operation, requestId) => admit(caller, model, operation, 0, requestId),
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
