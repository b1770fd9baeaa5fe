import { Elysia } from 'elysia';
import type { RateLimiter } from '../limits/types';
import { requestContext } from './request-id';

/**
 * Stage 4 for account routes (the `routeRateLimit` route option, composed by `auth`): one
 * request against the account-wide `rateLimits.apiRpm`, with the spec 8.2 request headers.
 * Inference routes do not take it: the metered call admits them against the model's limits.
 */
export function routeRateLimitGate(limits: RateLimiter) {
  return new Elysia({ name: 'svc.gate.route-rate-limit' }).use(requestContext).macro({
    routeRateLimit: {
      async transform({ path, svc, set }) {
        if (!svc.caller) return;
        Object.assign(set.headers, await limits.admitRoute(svc.caller, path, svc.requestId));
      },
    },
  });
}
