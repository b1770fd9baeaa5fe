import { Elysia } from 'elysia';
import { requestContext } from './request-id';
import type { Tracing } from '../tracing';

/**
 * Starts each request's trace (its ids, the client's `traceparent` continued, the sampler's
 * decision) right after the request context is made, before authentication and before any
 * log line or upstream call that carries its ids. Mounted only when tracing is on.
 */
export function traceGate(tracing: Tracing) {
  return new Elysia({ name: 'svc.tracing' }).use(requestContext).onTransform({ as: 'global' }, function beginTrace({ svc, request }) {
    svc.trace = tracing.begin(request, svc.requestId);
  });
}
