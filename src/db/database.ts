import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type * as schema from './schema';

/** The drizzle database, whichever driver (PGlite or postgres.js) sits beneath it. */
export type Database = PgDatabase<PgQueryResultHKT, typeof schema>;

/** An open database with the means to close it. */
export interface Storage {
  db: Database;
  /** 'pglite' (embedded) or 'postgres' (DATABASE_URL). */
  backend: 'pglite' | 'postgres';
  close(): Promise<void>;
}
