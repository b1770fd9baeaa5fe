import { Elysia } from 'elysia';
import { createHash, timingSafeEqual } from 'node:crypto';
import { unauthorized } from './errors';
import { metricsRegistry } from '../metrics';

const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * `GET /metrics` in Prometheus text format (src/metrics). With `token` set, scrapers must
 * send `Authorization: Bearer <token>` (compared in constant time); otherwise it is open,
 * as is usual on a private network. Disabled, the route does not exist.
 */
export function metricsRoute(opts: { enabled: boolean; token?: string }) {
  if (!opts.enabled) return new Elysia({ name: 'svc.http.metrics' });
  const expected = opts.token ? digest(`Bearer ${opts.token}`) : null;
  return new Elysia({ name: 'svc.http.metrics' }).get(
    '/metrics',
    async function metrics({ headers, set }) {
      if (expected && !timingSafeEqual(digest(headers.authorization ?? ''), expected)) {
        set.headers['www-authenticate'] = 'Bearer realm="metrics"';
        throw unauthorized('Authentication failed: /metrics needs the bearer token set as metricsToken');
      }
      set.headers['content-type'] = metricsRegistry.contentType;
      return metricsRegistry.metrics();
    },
    { detail: { hide: true } },
  );
}
