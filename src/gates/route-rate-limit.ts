import type { RateLimiter } from '../limits/types';
import type { AfterAuthStage } from './auth';

/**
 * Stage 4 for authenticated routes that are not bound to a model (keys, billing,
 * characters, ...): one request against the account-wide `rateLimits.apiRpm`, with the
 * spec 8.2 request headers on the response. Model routes (`metered`) are skipped: the
 * meter admits them against the model's own limits and sets those headers.
 */
export function routeRateLimitStage(limits: RateLimiter, metered: ReadonlySet<string>): AfterAuthStage {
  return async function limitRoute({ path, svc, set }) {
    if (!svc.caller || metered.has(path)) return;
    Object.assign(set.headers, await limits.admitRoute(svc.caller, path, svc.requestId));
  };
}
