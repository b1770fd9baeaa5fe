/** Length of every rate-limit window: the spec's limits are per minute. */
export const WINDOW_MS = 60_000;

/** Whose counters: the account (on Redis, the hash tag that keeps them in its billing slot) and what they count (a model, `api`). */
export interface LimitKey {
  readonly account: string;
  readonly scope: string;
}

/** One request to count against `rpm` and, with `tokens`, `tokens.reserve` tokens against `tokens.limit`. */
export interface RateCount {
  readonly key: LimitKey;
  readonly rpm: number;
  readonly tokens: { readonly limit: number; readonly reserve: number } | null;
}

/** Tokens to add (negative: give back) to a window's count without a limit check. */
export interface TokenCorrection {
  readonly key: LimitKey;
  readonly window: number;
  readonly delta: number;
}

/** The state of one limit key after an admission attempt, in the current fixed window. */
export interface AdmitResult {
  /** null when admitted; else the limit that refused (nothing was consumed then). */
  refused: 'RPM' | 'TPM' | null;
  /** Requests counted in the window (including this one when admitted). */
  requests: number;
  /** Tokens counted in the window (including this reservation when admitted); 0 without a token limit. */
  tokens: number;
  /** Index of the window the request was counted in (for token corrections). */
  window: number;
  /** Epoch ms at which the window ends and both counters start again from zero. */
  resetAt: number;
  /** The store's clock (epoch ms) when the request was counted. */
  at: number;
}

/**
 * Counters behind the rate limiter: fixed one-minute windows per key, requests and tokens.
 * One implementation in process (injected clock), one over Redis (a Lua script). The meter
 * folds the same counts into its own atomic step (the billing store's reserve and settle).
 */
export interface LimitStore {
  readonly backend: 'memory' | 'redis';
  /**
   * Counts one request against `rpm` and, with `tokens`, reserves `tokens.reserve` against
   * `tokens.limit`. A request refused on either limit leaves both counters as they were.
   */
  /** A value when counted at once (in process). */
  admit(key: LimitKey, rpm: number, tokens: RateCount['tokens']): AdmitResult | Promise<AdmitResult>;
  /** Adds `delta` (negative gives back) to the tokens of `window`, without a limit check; a past window is left alone. Nothing when done at once (in process). */
  correctTokens(key: LimitKey, window: number, delta: number): void | Promise<void>;
  close(): Promise<void>;
}

/** True when a request asking for `reserve` tokens does not fit: at least one token must be left. */
export function tokensExceeded(used: number, reserve: number, limit: number): boolean {
  return used + Math.max(reserve, 1) > limit;
}
