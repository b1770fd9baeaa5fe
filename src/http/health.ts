import { sql } from 'drizzle-orm';
import { Elysia } from 'elysia';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AppDeps } from '../deps';
import { MIGRATIONS_FOLDER } from '../db/open';
import { isDraining } from '../lifecycle/draining';
import { SVC_VERSION } from './version';

// A dependency slower than this counts as down: a probe must answer before its own timeout.
const CHECK_TIMEOUT_MS = 2_000;
/** Settlements waiting for the ledger above which `/health/ready` fails (the database is not keeping up). */
export const LEDGER_BACKLOG_LIMIT = 50_000;

type CheckResult = 'ok' | string;

/**
 * Runs one dependency check within the timeout; the result is 'ok' or why not (no internals:
 * probes may be public). With `verdict`, the check's own answer is the result.
 */
async function check(run: () => Promise<unknown>, verdict = false): Promise<CheckResult> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<string>((resolve) => (timer = setTimeout(() => resolve('timeout'), CHECK_TIMEOUT_MS)));
  try {
    return await Promise.race([run().then((r) => (verdict ? String(r) : ('ok' as const))), late]);
  } catch {
    return 'unavailable';
  } finally {
    clearTimeout(timer);
  }
}

const migrationCount = (): number =>
  (JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8')) as { entries: unknown[] }).entries.length;

/** The 503 body of a failed readiness probe, naming what is down. */
function notReady(set: { status?: number | string }, checks: Record<string, CheckResult>) {
  set.status = 503;
  const down = Object.entries(checks)
    .filter(([, v]) => v !== 'ok')
    .map(([k, v]) => `${k} ${v}`);
  return { error: `Not ready: ${down.join(', ')}`, status: 'unavailable', checks };
}

/**
 * Probes for orchestrators and load balancers, outside the base path, without auth and
 * outside every limit: `GET /health` and `GET /health/live` (liveness: the process
 * answers), `GET /ready` (the database and the KV store answer, and the process is not
 * shutting down) and `GET /health/ready` (the same, plus every migration applied and the
 * ledger writer able to write with its backlog under LEDGER_BACKLOG_LIMIT). Each answers 503 otherwise, so a balancer stops
 * sending traffic to an instance that could only answer 503, and sends it again after.
 */
export function healthRoutes(
  deps: Pick<AppDeps, 'storage' | 'kv'> & Partial<Pick<AppDeps, 'meter'>>,
  draining: () => boolean = isDraining,
) {
  const expected = migrationCount();
  let migrated = false;
  const backlog = (deps.meter as { store?: { queued(): Promise<number> } } | undefined)?.store;

  async function dependencies() {
    const [database, kv] = await Promise.all([
      check(() => deps.storage.db.execute(sql`select 1`)),
      check(() => deps.kv.get('svc:ready-probe')),
    ]);
    return { database, kv };
  }

  async function applied(): Promise<CheckResult> {
    if (migrated) return 'ok';
    const rows = await deps.storage.db.execute(sql`select count(*)::int as n from drizzle.__drizzle_migrations`);
    const n = Number(((Array.isArray(rows) ? rows : (rows as { rows: unknown[] }).rows) as { n: number }[])[0]?.n ?? 0);
    migrated = n >= expected;
    return migrated ? 'ok' : `${n} of ${expected} applied`;
  }

  function liveness() {
    return { status: 'ok', version: SVC_VERSION };
  }

  return new Elysia({ name: 'svc.http.health' })
    .get('/health', liveness, { detail: { hide: true } })
    .get('/health/live', liveness, { detail: { hide: true } })
    .get(
      '/ready',
      async function readiness({ set }) {
        set.headers['cache-control'] = 'no-store';
        if (draining()) {
          set.status = 503;
          return { error: 'Not ready: shutting down', status: 'draining' };
        }
        const checks = await dependencies();
        if (checks.database === 'ok' && checks.kv === 'ok') return { status: 'ready', checks };
        return notReady(set, checks);
      },
      { detail: { hide: true } },
    )
    .get(
      '/health/ready',
      async function fullReadiness({ set }) {
        set.headers['cache-control'] = 'no-store';
        if (draining()) {
          set.status = 503;
          return { error: 'Not ready: shutting down', status: 'draining' };
        }
        const [deps_, migrations, ledger] = await Promise.all([
          dependencies(),
          check(applied, true),
          backlog
            ? check(async () => {
                // The cause is in the logs and the metrics, not here: probes may be public.
                if (deps.meter?.ledgerProblem()) return 'cannot write';
                const n = await backlog.queued();
                return n < LEDGER_BACKLOG_LIMIT ? 'ok' : `${n} settlements waiting`;
              }, true)
            : Promise.resolve<CheckResult>('ok'),
        ]);
        const checks = { ...deps_, migrations, ledger };
        if (Object.values(checks).every((v) => v === 'ok')) return { status: 'ready', checks };
        return notReady(set, checks);
      },
      { detail: { hide: true } },
    );
}
