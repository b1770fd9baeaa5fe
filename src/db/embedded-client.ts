import type { PGlite } from '@electric-sql/pglite';
import type { Database } from './database';

/**
 * The PGlite clients `openPglite` made, so code that takes a faster path on the embedded
 * database can find its client without importing PGlite: a value import of the package (for an
 * `instanceof`) loaded its JavaScript into every process, also on a Postgres deployment that
 * never opens it (idle RSS on Redis + Postgres 99 -> 97 MB, `bench/idle-rss.ts`, 3 runs each).
 */
const embedded = new WeakSet<object>();

/** Records `client` as the embedded database's. */
export function markEmbedded(client: PGlite): void {
  embedded.add(client);
}

/** The PGlite client beneath a drizzle database, or null on postgres.js. */
export function pgliteOf(db: Database): PGlite | null {
  const client = (db as unknown as { $client?: object }).$client;
  return client && embedded.has(client) ? (client as PGlite) : null;
}
