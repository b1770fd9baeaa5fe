import type { Caller } from '../http/request-context';
import type { ModelEntry } from '../models/catalog';
import type { AccountLimits, AccountLimitsChange } from './account-limits';
import type { AdmitResult, LimitStore, RateCount, TokenCorrection } from './store';
import type { AccountTier, ModelLimits, VideoOperation } from './tables';

/** What a request took from its rate limits, and the headers that report them (spec 8.2). */
export interface RateLimitAdmission {
  /** `x-ratelimit-*` headers for the response (set before the first byte). */
  readonly headers: Record<string, string>;
  /**
   * Corrects the tokens reserved up front to what the request really used (prompt plus
   * completion): the difference is given back or taken. Only the first call counts.
   */
  settleTokens(actualTokens: number): Promise<void>;
  /**
   * The same correction as data, for a store that applies it together with the settlement
   * (one round trip); null when there is nothing to correct. It closes the admission like
   * `settleTokens`: only the first call of either counts.
   */
  tokenCorrection(actualTokens: number): TokenCorrection | null;
}

/**
 * A call's rate-limit count, prepared but not yet counted: the meter counts it in the same
 * atomic step as the call's reservation, then hands the result to `conclude`.
 */
export interface LimitPlan extends RateCount {
  readonly caller: Caller;
  readonly limits: ModelLimits;
  /** The catalog model, or null for a route's account-wide limit (`path`). */
  readonly model: ModelEntry | null;
  readonly path: string;
  /** The account's tier, for the refusal log. */
  readonly tier: AccountTier;
}

/** A route's own account-wide limit, counted apart from `rateLimits.apiRpm` (e.g. crypto RPC's requests per minute). */
export interface RouteLimit {
  /** The counters' name, e.g. `rpc`. */
  readonly scope: string;
  readonly rpm: number;
}

/** A request refused by a limit, as GET /api_keys/rate_limits/log lists it. */
export interface RateLimitRefusal {
  accountId: string;
  apiKeyId: string | null;
  /** The model id, or `endpoint:<path>` for limits not bound to a model. */
  modelId: string;
  /** The account's rate-limit tier (`standard` or `partner`). */
  tier: string;
  /** `RPM`, `TPM` or `FAILED_REQUESTS` (the abuse guard). */
  type: 'RPM' | 'TPM' | 'FAILED_REQUESTS';
}

/** The log's model id of a route not bound to a model, as the reference writes it: `endpoint:api/v1/...`. */
export function endpointId(path: string): string {
  return `endpoint:${path.startsWith('/') ? path.slice(1) : path}`;
}

/** A refusal as listed by GET /api_keys/rate_limits/log. */
export interface RefusalEntry {
  apiKeyId: string | null;
  modelId: string;
  rateLimitTier: string;
  rateLimitType: string;
  timestamp: string;
}

/** Records refusals without a database write on the request path (written in batches). */
export interface RateLimitLog {
  record(refusal: RateLimitRefusal): void;
  /** Writes pending entries now (tests, shutdown, before listing). */
  flush(): Promise<void>;
}

/**
 * The rate limits of spec 8.1: requests (and, for text models, tokens) per minute by the
 * model's tier and the caller's account tier, over memory or Redis. A refusal throws a 429
 * ServiceError carrying the 8.2 headers and is recorded for the rate-limit log.
 */
export interface RateLimiter {
  /** One request plus `reservedTokens` tokens on `model` for `caller`; throws 429 when over. */
  admitModel(caller: Caller, model: ModelEntry, reservedTokens: number, requestId: string): Promise<RateLimitAdmission>;
  /** Like admitModel for a video model, counting against its queue or its retrieve limit. */
  admitVideo(caller: Caller, model: ModelEntry, operation: VideoOperation, requestId: string): Promise<RateLimitAdmission>;
  /** The account's tier and the limits in force for it per model (null: not limited). */
  limitsFor(accountId: string): Promise<{ tier: AccountTier; of(model: ModelEntry, video?: VideoOperation): ModelLimits | null }>;
  /** Sets an account's tier and/or overrides (operator); in force on every instance at once. Null for an unknown account. */
  updateAccount(accountId: string, change: AccountLimitsChange): Promise<AccountLimits | null>;
  /** The account's latest refusals, newest first (pending log entries are written first). */
  refusals(accountId: string, limit: number): Promise<RefusalEntry[]>;
  /**
   * One request on an authenticated route not bound to a model, against the account-wide
   * `rateLimits.apiRpm`; returns the 8.2 request headers, throws 429 when over.
   */
  admitRoute(caller: Caller, path: string, requestId: string): Promise<Record<string, string>>;
  /** The refusal log, shared with the abuse guard. */
  readonly log: RateLimitLog;
  /** The counters, which the meter's billing store also counts in (folded into its scripts on Redis); null when nothing is limited. */
  readonly store: LimitStore | null;
  /**
   * Prepares the count of a model call, or with a null model of a call against the route's
   * account-wide limit (`path`, or `route` when the route has its own); null when nothing
   * limits it. Throws the 400 of a request larger than a whole minute's tokens. A plan, not a
   * promise, when the account's limits are cached (the common case: no promise per admission).
   */
  plan(
    caller: Caller,
    model: ModelEntry | null,
    path: string,
    reservedTokens: number,
    route?: RouteLimit,
  ): LimitPlan | null | Promise<LimitPlan | null>;
  /**
   * The admission of a plan the store has counted: writes the 8.2 headers into `headers`;
   * throws the 429 (and logs the refusal) when a limit refused.
   */
  conclude(plan: LimitPlan, result: AdmitResult, requestId: string, headers: Record<string, string>): RateLimitAdmission;
  close(): Promise<void>;
}

/** The admission of a call that counts nothing to correct: its headers only. */
export function headersOnly(headers: Record<string, string>): RateLimitAdmission {
  return { headers, settleTokens: async () => {}, tokenCorrection: () => null };
}

/** A limiter that admits everything with no headers (unit tests that test something else). */
export const unlimited: RateLimiter = {
  async admitModel() {
    return headersOnly({});
  },
  async admitVideo() {
    return headersOnly({});
  },
  store: null,
  async plan() {
    return null;
  },
  conclude() {
    throw new Error('the unlimited rate limiter plans nothing');
  },
  async limitsFor() {
    return { tier: 'standard', of: () => null };
  },
  async updateAccount() {
    throw new Error('the unlimited rate limiter keeps no account settings');
  },
  async refusals() {
    return [];
  },
  async admitRoute() {
    return {};
  },
  log: { record() {}, async flush() {} },
  async close() {},
};
