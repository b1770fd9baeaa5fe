import { Elysia } from 'elysia';
import { hostname } from 'node:os';
import { SVC_VERSION } from '../http/version';
import { isDraining } from '../lifecycle/draining';

const HOST_NAME = process.env.SVC_HOST_NAME ?? hostname();

// Formatting a Date per request is measurable on the hot path; the header has one-second
// resolution, so one string per second serves every request in it.
let dateSecond = 0;
let dateValue = '';
function httpDate(): string {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== dateSecond) {
    dateSecond = second;
    dateValue = new Date(second * 1000).toUTCString();
  }
  return dateValue;
}

/**
 * Stage 9 (the parts every response shares): `x-svc-version` and `Date` on every response,
 * including errors and responses produced through `app.handle` without Bun's server, and
 * `x-svc-host-name` on errors (spec 9) so operators can find the instance that failed.
 * Route-specific headers (model, balance, rate limit) are set by their own stages. While the
 * process drains, `Connection: close` too.
 */
export const responseHeaders = new Elysia({ name: 'svc.gate.response-headers' })
  .onRequest(function stampCommonHeaders({ set }) {
    set.headers['x-svc-version'] = SVC_VERSION;
    set.headers.date = httpDate();
    // Shutting down: each kept-alive connection closes after its next answer, so a load
    // balancer reconnects (to another instance) instead of having the socket cut under a request.
    if (isDraining()) set.headers.connection = 'close';
  })
  .onError({ as: 'global' }, function stampHostOnError({ set }) {
    set.headers['x-svc-host-name'] = HOST_NAME;
  });
