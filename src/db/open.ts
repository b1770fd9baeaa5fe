import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import type { Database, Storage } from './database';
import { PgliteWorkerClient, prepareInWorker } from './pglite-client';
import * as schema from './schema';
import type { Logger } from '../log';

/** Where drizzle-kit writes the migrations that both drivers run at start. */
export const MIGRATIONS_FOLDER = fileURLToPath(new URL('./migrations', import.meta.url));

/** Opens Postgres at `url` and applies pending migrations. */
export async function openPostgres(url: string, opts: { max?: number; onStep?: OnStep } = {}): Promise<Storage> {
  const client = postgres(url, { max: opts.max ?? 10, onnotice: () => {} });
  const db = drizzlePostgres(client, { schema });
  opts.onStep?.('connecting to Postgres and applying migrations');
  await migratePostgres(db, { migrationsFolder: MIGRATIONS_FOLDER });
  return { db: db as unknown as Database, backend: 'postgres', close: () => client.end({ timeout: 5 }) };
}

/**
 * Settings of the embedded database. PGlite runs with fsync=off, so full-page images in the
 * WAL (they guard against torn pages after an OS crash, which fsync=off does not survive
 * anyway) bought nothing and cost ~20 % of each ledger insert (66 -> 52 us per row). Its
 * buffer pool lives in svc's own WASM heap: 32 MB instead of the default 128 MB keeps ~100 MB
 * of RSS off a busy process (362 -> 260 MB after warm-up) at the same insert cost, because
 * ledger inserts only touch the newest pages.
 */
const PGLITE_SETTINGS = ['full_page_writes=off', 'shared_buffers=32MB'];

/**
 * svc's JavaScriptCore sizes its garbage collections by the heap including "extra memory";
 * PGlite's WASM memory (hundreds of MB) used to count there and kept collections rare. With
 * PGlite in a worker, svc's heap looked small and JSC collected so often that its GC helper
 * threads cost 17-25 µs per streamed request (measured, `bench/in-process.ts --threads`).
 * 256 MB of WASM memory that is never touched (so never resident) restores the old pacing.
 */
let gcBallast: WebAssembly.Memory | null = null;

/**
 * Opens PGlite in its own worker thread (src/db/pglite-worker.ts), in `dataDir` (created if
 * missing) or from a pre-migrated dump (tests), with pending migrations applied there. svc's
 * thread gets a drizzle database whose client forwards each statement to the worker. A new
 * directory is created and migrated by a first worker that then exits, so the hundreds of MB
 * of WASM heap that initdb and the first migrations touch leave with it (PGlite never returns
 * heap pages).
 */
export async function openPglite(
  opts: { dataDir?: string; loadDataDir?: Blob | File; onStep?: OnStep; log?: Logger } = {},
): Promise<Storage> {
  const open = { dataDir: opts.dataDir, load: opts.loadDataDir, settings: PGLITE_SETTINGS, migrationsFolder: MIGRATIONS_FOLDER };
  if (opts.dataDir) {
    mkdirSync(opts.dataDir, { recursive: true });
    if (!existsSync(`${opts.dataDir}/PG_VERSION`)) {
      opts.onStep?.('creating the embedded database (PGlite) and applying migrations');
      await prepareInWorker(open);
    }
  }
  gcBallast ??= new WebAssembly.Memory({ initial: 4096 });
  opts.onStep?.('starting the embedded database engine (PGlite) and applying migrations');
  const client = await PgliteWorkerClient.start(open, opts.log);
  const db = drizzlePglite(client as never, { schema });
  return { db: db as unknown as Database, backend: 'pglite', close: () => client.close() };
}

/** Told each step of opening storage as it begins (the first start shows them: it takes seconds). */
export type OnStep = (step: string) => void;

/** Opens the configured storage: Postgres when DATABASE_URL is set, else PGlite in dataDir. */
export function openStorage(config: { databaseUrl?: string; dataDir: string }, onStep?: OnStep): Promise<Storage> {
  return config.databaseUrl ? openPostgres(config.databaseUrl, { onStep }) : openPglite({ dataDir: `${config.dataDir}/pglite`, onStep });
}
