import { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import type { Database, Storage } from './database';
import * as schema from './schema';

/** Where drizzle-kit writes the migrations that both drivers run at start. */
export const MIGRATIONS_FOLDER = fileURLToPath(new URL('./migrations', import.meta.url));

/** Opens Postgres at `url` and applies pending migrations. */
export async function openPostgres(url: string, opts: { max?: number } = {}): Promise<Storage> {
  const client = postgres(url, { max: opts.max ?? 10, onnotice: () => {} });
  const db = drizzlePostgres(client, { schema });
  await migratePostgres(db, { migrationsFolder: MIGRATIONS_FOLDER });
  return { db: db as unknown as Database, backend: 'postgres', close: () => client.end({ timeout: 5 }) };
}

/**
 * Opens PGlite, in `dataDir` (created if missing) or from a pre-migrated dump (tests),
 * and applies pending migrations.
 */
export async function openPglite(opts: { dataDir?: string; loadDataDir?: Blob | File } = {}): Promise<Storage> {
  if (opts.dataDir) mkdirSync(opts.dataDir, { recursive: true });
  // PGlite runs with fsync=off; full-page images in the WAL only guard against torn pages
  // after an OS crash, which fsync=off does not survive anyway, and they cost ~20 % of each
  // ledger insert (measured: 66 -> 52 us per row).
  const client = new PGlite({ dataDir: opts.dataDir, loadDataDir: opts.loadDataDir, postgresqlconf: ['full_page_writes=off'] });
  const db = drizzlePglite(client, { schema });
  await migratePglite(db, { migrationsFolder: MIGRATIONS_FOLDER });
  return { db: db as unknown as Database, backend: 'pglite', close: () => client.close() };
}

/** Opens the configured storage: Postgres when DATABASE_URL is set, else PGlite in dataDir. */
export function openStorage(config: { databaseUrl?: string; dataDir: string }): Promise<Storage> {
  return config.databaseUrl ? openPostgres(config.databaseUrl) : openPglite({ dataDir: `${config.dataDir}/pglite` });
}
