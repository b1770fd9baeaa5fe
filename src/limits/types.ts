import type { Caller } from '../http/request-context';
import type { ModelEntry } from '../models/catalog';
import type { AccountLimits, AccountLimitsChange } from './account-limits';
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
  close(): Promise<void>;
}

/** A limiter that admits everything with no headers (unit tests that test something else). */
export const unlimited: RateLimiter = {
  async admitModel() {
    return { headers: {}, async settleTokens() {} };
  },
  async admitVideo() {
    return { headers: {}, async settleTokens() {} };
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
