import type { AdmitResult } from './store';
import type { ModelLimits } from './tables';

/**
 * The spec 8.2 headers for one admission: limit, remaining and reset of requests (reset as
 * a Unix timestamp in seconds) and, for text models, of tokens (reset in seconds from now).
 * `x-ratelimit-type` is `user`: the counters are per account and model. Written into
 * `headers` (the response's own object, so no copy) and returned.
 */
export function rateLimitHeaders(limits: ModelLimits, result: AdmitResult, headers: Record<string, string> = {}): Record<string, string> {
  headers['x-ratelimit-limit-requests'] = String(limits.rpm);
  headers['x-ratelimit-remaining-requests'] = String(Math.max(0, limits.rpm - result.requests));
  headers['x-ratelimit-reset-requests'] = String(Math.ceil(result.resetAt / 1000));
  if (limits.tpm !== null) {
    headers['x-ratelimit-limit-tokens'] = String(limits.tpm);
    headers['x-ratelimit-remaining-tokens'] = String(Math.max(0, limits.tpm - result.tokens));
    headers['x-ratelimit-reset-tokens'] = String(Math.max(0, Math.ceil((result.resetAt - result.at) / 1000)));
  }
  headers['x-ratelimit-type'] = 'user';
  return headers;
}
