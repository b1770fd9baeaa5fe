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
  ) {
    super(status, { error: message });
  }
}

/** The upstream could not be reached or answered 5xx: 502, try another replica. */
export const upstreamUnavailable = (detail: string) => new UpstreamFailure(502, `Upstream error: ${detail}. Please retry.`, true);

/** The upstream is saturated (429/503): 503 at capacity, try another replica. */
export const upstreamAtCapacity = () => new UpstreamFailure(503, 'The model is at capacity. Please try again later.', true);

/** No first byte within the provider's timeoutMs: 504, not retried (the time is spent). */
export const upstreamTimeout = (timeoutMs: number) =>
  new UpstreamFailure(504, `The upstream did not respond within ${timeoutMs} ms. Retry later, or use stream=true.`, false);

/** The upstream refused the request itself (4xx): the client's request needs changing. */
export const upstreamRejected = (status: number, detail: string) =>
  new UpstreamFailure(status === 413 ? 413 : 400, `The upstream rejected the request: ${detail}`, false);

/** Whether an error thrown by a provider may be retried on another replica. */
export function isRetryable(error: unknown): boolean {
  return error instanceof UpstreamFailure && error.retryable;
}

/** Maps any provider error to a ServiceError the client can act on. */
export function asServiceError(error: unknown): ServiceError {
  if (error instanceof ServiceError) return error;
  return upstreamError(502, 'Upstream error. Please retry.');
}
