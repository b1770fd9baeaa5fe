import type { Sql, TransactionSql } from 'postgres';
import type { Database } from './database';
import { pgliteOf } from './embedded-client';

/** The postgres.js client beneath a drizzle database (with its deadlines), or null on PGlite. */
export function postgresOf(db: Database): Sql | null {
  const client = (db as unknown as { $client?: { begin?: unknown } }).$client;
  return client && typeof client.begin === 'function' && !pgliteOf(db) ? (client as unknown as Sql) : null;
}

/**
 * How long a COPY may go unanswered before it is taken as failed: a backstop only, for a server
 * that stops answering or a postgres.js whose query no longer rejects as `copyCsv` expects.
 */
const COPY_ANSWER_MS = 5_000;

/**
 * postgres.js (3.4) resolves a COPY FROM STDIN query with its writable stream, so a refusal the
 * server sends after the last row (a key already there, a value it cannot read) rejects a query
 * already settled, and the writable's end callback is never called (porsager/postgres#1173).
 * The refusal still reaches the query's own `reject`: this hears it there, so the caller's
 * transaction rolls back at once instead of holding its connection for COPY_ANSWER_MS. (It let
 * the COPYs go without a probe of their keys first: 1.3-1.7 µs of Postgres's CPU a row each.)
 */
function onRefusal(query: object, heard: (error: unknown) => void): void {
  const settled = query as unknown as { reject?: (error: unknown) => void };
  const reject = settled.reject;
  if (typeof reject !== 'function') return;
  settled.reject = function refusedCopy(error: unknown) {
    heard(error);
    reject.call(settled, error);
  };
}

/**
 * Sends `csv` through `copy` (a `COPY ... FROM STDIN WITH (FORMAT csv)` statement) inside the
 * transaction `tx`. Rejects when the server refuses it (a duplicate key included), or when it
 * does not answer in time: the caller's transaction then rolls back whole.
 */
export async function copyCsv(tx: TransactionSql, copy: string, csv: string): Promise<void> {
  const query = tx.unsafe(copy);
  const writable = await query.writable();
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      onRefusal(query, reject);
      writable.once('error', reject);
      timer = setTimeout(() => reject(new Error('COPY: no answer from the database')), COPY_ANSWER_MS);
      writable.end(csv, () => resolve());
    });
  } finally {
    clearTimeout(timer);
  }
}
