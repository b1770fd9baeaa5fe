import { sql } from 'drizzle-orm';
import { Elysia } from 'elysia';
import type { AppDeps } from '../deps';
import { isDraining } from '../lifecycle/draining';
import { SVC_VERSION } from './version';

// A dependency slower than this counts as down: a probe must answer before its own timeout.
const CHECK_TIMEOUT_MS = 2_000;

type CheckResult = 'ok' | string;

/** Runs one dependency check within the timeout; the result is 'ok' or why not (no internals: probes may be public). */
async function check(run: () => Promise<unknown>): Promise<CheckResult> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<string>((resolve) => (timer = setTimeout(() => resolve('timeout'), CHECK_TIMEOUT_MS)));
  try {
    return await Promise.race([run().then(() => 'ok' as const), late]);
  } catch {
    return 'unavailable';
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Probes for orchestrators and load balancers, outside the base path and without auth:
 * `GET /health` (liveness: the process answers) and `GET /ready` (readiness: the database
 * and the KV store answer, and the process is not shutting down; 503 otherwise).
 */
export function healthRoutes(deps: Pick<AppDeps, 'storage' | 'kv'>, draining: () => boolean = isDraining) {
  return new Elysia({ name: 'svc.http.health' })
    .get(
      '/health',
      function liveness() {
        return { status: 'ok', version: SVC_VERSION };
      },
      { detail: { hide: true } },
    )
    .get(
      '/ready',
      async function readiness({ set }) {
        set.headers['cache-control'] = 'no-store';
        if (draining()) {
          set.status = 503;
          return { error: 'Not ready: shutting down', status: 'draining' };
        }
        const [database, kv] = await Promise.all([
          check(() => deps.storage.db.execute(sql`select 1`)),
          check(() => deps.kv.get('svc:ready-probe')),
        ]);
        const checks = { database, kv };
        if (database === 'ok' && kv === 'ok') return { status: 'ready', checks };
        set.status = 503;
        const down = Object.entries(checks)
          .filter(([, v]) => v !== 'ok')
          .map(([k, v]) => `${k} ${v}`);
        return { error: `Not ready: ${down.join(', ')}`, status: 'unavailable', checks };
      },
      { detail: { hide: true } },
    );
}
