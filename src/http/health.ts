import { sql } from 'drizzle-orm';
import { Elysia } from 'elysia';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AppDeps } from '../deps';
import { MIGRATIONS_FOLDER } from '../db/open';

/** Settlements waiting for the ledger above which an instance reports itself not ready (the database is not keeping up). */
export const LEDGER_BACKLOG_LIMIT = 50_000;
/** How long one readiness probe may wait for Postgres or Redis. */
const PROBE_MS = 1_000;

type Check = { ok: boolean; detail?: string };

/** Resolves to the check, or to a failed one after PROBE_MS (a probe must not hang like the thing it probes). */
function probe(what: Promise<unknown>, ok: (v: unknown) => Check = () => ({ ok: true })): Promise<Check> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<Check>((r) => (timer = setTimeout(() => r({ ok: false, detail: `no answer within ${PROBE_MS} ms` }), PROBE_MS)));
  const answer = what.then(ok, (error) => ({ ok: false, detail: String((error as Error)?.message ?? error).slice(0, 200) }));
  return Promise.race([answer, late]).finally(() => clearTimeout(timer));
}

const migrationCount = (): number =>
  (JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8')) as { entries: unknown[] }).entries.length;

/** The ledger backlog of the meter's store, when the meter has one (the live meter does). */
function backlogOf(deps: AppDeps): Promise<number> | null {
  const store = (deps.meter as { store?: { queued(): Promise<number> } }).store;
  return store ? store.queued() : null;
}

/**
 * Health for load balancers, outside the API prefix, unauthenticated and outside every
 * limit. `GET /health/live`: the process answers. `GET /health/ready`: Postgres and Redis
 * answer, every migration is applied, and the ledger backlog is under its bound; 503 with
 * the failing checks otherwise, so a balancer stops sending traffic to an instance that
 * could only answer 503 and sends it again once it recovers.
 */
export function healthRoutes(deps: AppDeps) {
  const expected = migrationCount();
  let migrated = false;

  async function readiness() {
    const db = probe(deps.storage.db.execute(sql`select 1`));
    const redis = deps.kv.redis ? probe(deps.kv.redis.send('PING', [])) : Promise.resolve<Check>({ ok: true, detail: 'in memory' });
    const migrations = migrated
      ? Promise.resolve<Check>({ ok: true })
      : probe(deps.storage.db.execute(sql`select count(*)::int as n from drizzle.__drizzle_migrations`), (r) => {
          const rows = (Array.isArray(r) ? r : (r as { rows: unknown[] }).rows) as { n: number }[];
          migrated = Number(rows[0]?.n ?? 0) >= expected;
          return migrated ? { ok: true } : { ok: false, detail: `${rows[0]?.n ?? 0} of ${expected} applied` };
        });
    const backlog = backlogOf(deps);
    const ledger = backlog
      ? probe(backlog, (n) =>
          Number(n) < LEDGER_BACKLOG_LIMIT ? { ok: true, detail: `${n} queued` } : { ok: false, detail: `${n} queued` },
        )
      : Promise.resolve<Check>({ ok: true });
    const [postgres, kv, schema, queue] = await Promise.all([db, redis, migrations, ledger]);
    return { postgres, redis: kv, migrations: schema, ledger: queue };
  }

  return new Elysia({ name: 'svc.http.health' })
    .get('/health/live', function live() {
      return { status: 'ok' };
    })
    .get('/health/ready', async function ready({ set }) {
      const checks = await readiness();
      const failing = Object.entries(checks).filter(([, c]) => !c.ok);
      if (failing.length === 0) return { status: 'ok', checks };
      set.status = 503;
      set.headers['retry-after'] = '2';
      return { error: `Not ready: ${failing.map(([name]) => name).join(', ')} failing`, checks };
    });
}
