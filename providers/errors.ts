import { ServiceError, upstreamError } from '../src/http/errors';

/**
 * An upstream failure before the first byte. `retryable` tells the router to try another
 * replica (connect failure, 5xx, 429); otherwise the error goes to the client as it is.
 */
export class UpstreamFailure extends ServiceError {
  override name = 'UpstreamFailure';
  constructor(
    status: number,
    message: string,
    readonly retryable: boolean,
    headers: Record<string, string> = {},
  ) {
    super(status, { error: message }, headers);
  }
}

/** The upstream could not be reached or answered 5xx: 502, try another replica. */
export const upstreamUnavailable = (detail: string) => new UpstreamFailure(502, `Upstream error: ${detail}. Please retry.`, true);

/** Seconds a client is told to wait after an overloaded upstream that did not say (Retry-After). */
export const AT_CAPACITY_RETRY_SECONDS = 5;

/**
 * Seconds from an upstream's Retry-After (seconds or an HTTP date), kept within 1..60 (the
 * openai SDK ignores longer values); AT_CAPACITY_RETRY_SECONDS when absent or unreadable.
 */
export function upstreamRetryAfter(value: string | null | undefined, now = Date.now()): number {
  const raw = value?.trim() ?? '';
  // Seconds, or an HTTP date (which always names a weekday or month); anything else is unreadable.
  const seconds = /^\d+(\.\d+)?$/.test(raw) ? Number(raw) : /[A-Za-z]/.test(raw) ? (Date.parse(raw) - now) / 1000 : Number.NaN;
  return Number.isFinite(seconds) ? Math.min(60, Math.max(1, Math.ceil(seconds))) : AT_CAPACITY_RETRY_SECONDS;
}

/**
 * The upstream is saturated (429/503): 503 at capacity, try another replica. The client is
 * told when to retry with Retry-After (the upstream's value when it gave one).
 */
export const upstreamAtCapacity = (retryAfter?: string | null) => {
  const seconds = upstreamRetryAfter(retryAfter);
  return new UpstreamFailure(503, `The model is at capacity. Please retry in ${seconds} s.`, true, { 'retry-after': String(seconds) });
};

/** No first byte within the provider's timeoutMs: 504, not retried (the time is spent). */
export const upstreamTimeout = (timeoutMs: number) =>
  new UpstreamFailure(504, `The upstream did not respond within ${timeoutMs} ms. Retry later, or use stream=true.`, false);

/** The upstream refused the request itself (4xx): the client's request needs changing. */
export const upstreamRejected = (status: number, detail: string) =>
  new UpstreamFailure(status === 413 ? 413 : 400, `The upstream rejected the request: ${detail}`, false);

/**
 * The provider refused the content (a safety block) before producing any: 422 (the
 * reference's ContentViolationError) with `x-svc-is-content-violation`, not retried, nothing charged.
 */
export const upstreamContentViolation = (detail: string) =>
  new UpstreamFailure(422, `The request was flagged as a content policy violation (${detail}); nothing was charged`, false, {
    'x-svc-is-content-violation': 'true',
  });

/** Whether an error thrown by a provider may be retried on another replica. */
export function isRetryable(error: unknown): boolean {
  return error instanceof UpstreamFailure && error.retryable;
}

/** Maps any provider error to a ServiceError the client can act on. */
export function asServiceError(error: unknown): ServiceError {
  if (error instanceof ServiceError) return error;
  return upstreamError(502, 'Upstream error. Please retry.');
}
