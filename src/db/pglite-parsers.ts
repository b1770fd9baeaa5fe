import type { PGlite } from '@electric-sql/pglite';

type Query = PGlite['query'];

/** The type oids drizzle reads as text (timestamp, timestamptz, interval, date and the arrays of those and numeric): it maps them itself. */
const AS_TEXT = [1114, 1184, 1186, 1082, 1231, 1115, 1185, 1187, 1182];

/**
 * Makes drizzle's queries on PGlite stop copying PGlite's parser table on every query.
 * drizzle passes `parsers` (the types above as text) with each query, and PGlite then merges
 * them into a copy of its own table of 318 parsers keyed by type oid (`{...parsers,
 * ...options.parsers}` in its parseResults): a sparse integer-keyed object whose copy cost
 * ~100 µs a query, 22 % of svc's main thread in the media-jobs bench. The same parsers are set
 * on the instance once instead, and the per-query ones dropped: drizzle reads the same text.
 * Only drizzle and the ledger's COPY (which reads no rows) use this client.
 */
export function parseOnce(client: PGlite): void {
  const identity = (value: string) => value;
  for (const oid of AS_TEXT) client.parsers[oid] = identity;
  const without = (query: Query): Query =>
    ((sql: string, params?: unknown[], options?: Parameters<Query>[2]) =>
      query(sql, params, options?.parsers ? { ...options, parsers: undefined } : options)) as Query;
  client.query = without(client.query.bind(client));
  const transaction = client.transaction.bind(client);
  client.transaction = ((fn: Parameters<PGlite['transaction']>[0]) =>
    transaction((tx) => fn(Object.assign(Object.create(tx), { query: without(tx.query) })))) as PGlite['transaction'];
}
