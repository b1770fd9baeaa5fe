import { markEmbedded } from './embedded-client';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { lazyModule } from '../lifecycle/lazy-module';
import type { Database, Storage } from './database';
import { withDeadlines } from './deadline';
import { createPgliteInChild, needsFirstStart } from './first-start';
import { parseOnce } from './pglite-parsers';
import * as schema from './schema';

// Each driver is loaded only by the backend that uses it (~5 MB of RSS each, idle).
const loadPostgres = lazyModule(async () => {
  const [{ default: postgres }, { drizzle }, { migrate }] = await Promise.all([
    import('postgres'),
    import('drizzle-orm/postgres-js'),
    import('drizzle-orm/postgres-js/migrator'),
  ]);
  return { postgres, drizzle, migrate };
});
const loadPglite = lazyModule(async () => {
  const [{ PGlite }, { drizzle }, { migrate }] = await Promise.all([
    import('@electric-sql/pglite'),
    import('drizzle-orm/pglite'),
    import('drizzle-orm/pglite/migrator'),
  ]);
  return { PGlite, drizzle, migrate };
});

/** Where drizzle-kit writes the migrations that both drivers run at start. */
export const MIGRATIONS_FOLDER = fileURLToPath(new URL('./migrations', import.meta.url));

/** The default deadline of a Postgres call (config `databaseTimeoutMs`). */
export const DATABASE_TIMEOUT_MS = 1_500;

/** The longest a pool connection waits before it tries to connect again after failures (seconds). */
export const RECONNECT_MAX_DELAY_S = 0.5;

/**
 * The delay before a connection's next attempt after `failures` failed ones in a row (the
 * pool counts them together), in seconds: 50 ms doubling up to RECONNECT_MAX_DELAY_S, with
 * jitter. postgres.js's own grows as 3^n / 100 s up to 20 s, so after a long outage the
 * pool waited up to 20 s before it tried the database that was back (503s for 5 s and more
 * after a 24 s outage); bounded, every instance serves within a second of its return. The
 * load a retry puts on a database that is down stays small: a few connections per instance.
 */
export function reconnectDelaySeconds(failures: number): number {
  return Math.min(0.05 * 2 ** Math.min(failures, 10), RECONNECT_MAX_DELAY_S) * (0.5 + Math.random() / 2);
}

/** The session advisory lock one instance holds while it migrates (bootstrap.ts takes 7313001). */
export const MIGRATION_LOCK = 7313002;

/**
 * Opens Postgres at `url` and applies pending migrations (without a deadline: a migration
 * may take long). Every later call has a deadline of `timeoutMs` (see withDeadlines), and a
 * new connection gives up after as long, so an outage answers 503 within about that.
 */
export async function openPostgres(url: string, opts: { max?: number; onStep?: OnStep; timeoutMs?: number } = {}): Promise<Storage> {
  const { postgres, drizzle } = await loadPostgres();
  const timeoutMs = opts.timeoutMs ?? DATABASE_TIMEOUT_MS;
  const connectTimeout = Math.max(1, Math.ceil(timeoutMs / 1000));
  opts.onStep?.('connecting to Postgres and applying migrations');
  await migrateUnderLock(url, connectTimeout, opts.onStep);
  const client = postgres(url, {
    max: opts.max ?? 10,
    onnotice: () => {},
    connect_timeout: connectTimeout,
    backoff: reconnectDelaySeconds,
  });
  const db = drizzle(withDeadlines(client, timeoutMs), { schema });
  return { db: db as unknown as Database, backend: 'postgres', close: () => client.end({ timeout: 5 }) };
}

/**
 * Migrates on a connection of its own that holds MIGRATION_LOCK: instances starting together
 * (a Deployment's replicas, a rolling upgrade) would otherwise all run the same CREATE TABLEs
 * and all but one fail. The others wait on the lock, then find nothing left to apply. The
 * lock is the session's, so a process that dies while migrating releases it with its connection.
 */
async function migrateUnderLock(url: string, connectTimeout: number, onStep?: OnStep) {
  const { postgres, drizzle, migrate } = await loadPostgres();
  const client = postgres(url, { max: 1, onnotice: () => {}, connect_timeout: connectTimeout });
  try {
    const [first] = await client`select pg_try_advisory_lock(${MIGRATION_LOCK}) as locked`;
    if (!first?.locked) {
      onStep?.('waiting for another instance to finish migrating');
      await client`select pg_advisory_lock(${MIGRATION_LOCK})`;
    }
    await migrate(drizzle(client, { schema }), { migrationsFolder: MIGRATIONS_FOLDER });
  } finally {
    await client.end({ timeout: 5 });
  }
}

/**
 * Settings of the embedded database. PGlite runs with fsync=off, so full-page images in the
 * WAL (they guard against torn pages after an OS crash, which fsync=off does not survive
 * anyway) bought nothing and cost ~20 % of each ledger insert (66 -> 52 us per row).
 *
 * shared_buffers=4MB: the buffer pool lives in svc's own WASM heap and is zeroed when PGlite
 * starts, so all of it is resident from the first second, idle or not (PGlite alone, idle:
 * 153 MB at 32 MB, 127 at 8 MB, 118 at 1 MB). The ledger's inserts touch only the newest
 * pages, and a page that leaves the pool is still in the OS's page cache (the data directory
 * is real files), so the cost per ledger row did not move (bench/ledger-cost.ts, 60,000 rows
 * in batches of 300, 3 interleaved rounds: 18.6-20.0 us at 32 MB, 18.9-19.1 at 4 MB).
 * wal_buffers follows it (1/32, at least 64 kB).
 *
 * wal_init_zero=off: a new 16 MB WAL segment is created by writing its last byte instead of
 * zero-filling it, which PGlite does inside the COMMIT that needs it, on svc's thread. Under
 * load (8 s at full speed, then 20 s at 1,000 req/s) that made a COMMIT of 13-53 ms every few
 * seconds (6-7 statements over 8 ms a run, two runs); with it off, none (two runs).
 * Zero-filling only reserves the disk space early: with fsync=off a full disk fails a write
 * either way.
 */
const PGLITE_SETTINGS = ['full_page_writes=off', 'shared_buffers=4MB', 'wal_init_zero=off'];

/**
 * Opens PGlite, in `dataDir` (created if missing) or from a pre-migrated dump (tests),
 * and applies pending migrations.
 */
export async function openPglite(opts: { dataDir?: string; loadDataDir?: Blob | File; onStep?: OnStep } = {}): Promise<Storage> {
  if (opts.dataDir) mkdirSync(opts.dataDir, { recursive: true });
  const { PGlite, drizzle, migrate } = await loadPglite();
  const client = new PGlite({ dataDir: opts.dataDir, loadDataDir: opts.loadDataDir, postgresqlconf: PGLITE_SETTINGS });
  opts.onStep?.('starting the embedded database engine (PGlite)');
  await client.waitReady;
  parseOnce(client);
  markEmbedded(client);
  const db = drizzle(client, { schema });
  opts.onStep?.('applying migrations');
  await migrate(db, { migrationsFolder: MIGRATIONS_FOLDER });
  return { db: db as unknown as Database, backend: 'pglite', close: () => client.close() };
}

/** Told each step of opening storage as it begins (the first start shows them: it takes seconds). */
export type OnStep = (step: string) => void;

/** Opens the configured storage: Postgres when DATABASE_URL is set, else PGlite in dataDir. */
export function openStorage(
  config: { databaseUrl?: string; databaseTimeoutMs?: number; dataDir: string },
  onStep?: OnStep,
): Promise<Storage> {
  return config.databaseUrl
    ? openPostgres(config.databaseUrl, { onStep, timeoutMs: config.databaseTimeoutMs })
    : openEmbedded(`${config.dataDir}/pglite`, onStep);
}

/** Opens PGlite in `dataDir`, creating it in a child process first if it is new (see first-start.ts). */
async function openEmbedded(dataDir: string, onStep?: OnStep): Promise<Storage> {
  if (needsFirstStart(dataDir)) {
    mkdirSync(dataDir, { recursive: true });
    onStep?.('creating the embedded database and applying migrations (PGlite, first start)');
    await createPgliteInChild(dataDir);
  }
  return openPglite({ dataDir, onStep });
}
