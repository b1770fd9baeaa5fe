/** Length of every rate-limit window: the spec's limits are per minute. */
export const WINDOW_MS = 60_000;

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
 * One implementation in process (injected clock), one over Redis (@upstash/ratelimit).
 */
export interface LimitStore {
  /**
   * Counts one request against `rpm` and, with `tokens`, reserves `tokens.reserve` against
   * `tokens.limit`. A request refused on either limit leaves both counters as they were.
   */
  admit(key: string, rpm: number, tokens: { limit: number; reserve: number } | null): Promise<AdmitResult>;
  /** Adds `delta` (negative gives back) to the tokens of `window`, without a limit check; a past window is left alone. */
  correctTokens(key: string, window: number, delta: number): Promise<void>;
  close(): Promise<void>;
}

/** True when a request asking for `reserve` tokens does not fit: at least one token must be left. */
export function tokensExceeded(used: number, reserve: number, limit: number): boolean {
  return used + Math.max(reserve, 1) > limit;
}
