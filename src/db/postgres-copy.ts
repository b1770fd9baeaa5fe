import type { Sql, TransactionSql } from 'postgres';
import type { Database } from './database';
import { pgliteOf } from './embedded-client';

/** The postgres.js client beneath a drizzle database (with its deadlines), or null on PGlite. */
export function postgresOf(db: Database): Sql | null {
  const client = (db as unknown as { $client?: { begin?: unknown } }).$client;
  return client && typeof client.begin === 'function' && !pgliteOf(db) ? (client as unknown as Sql) : null;
}

/**
 * How long a COPY may go unanswered before it is taken as failed. postgres.js never settles a
 * COPY FROM STDIN the server refused after its last row was sent (porsager/postgres#1173: the
 * writable's end callback is dropped), which inside `begin` would hold the transaction and its
 * connection for good; past this the caller's transaction throws and rolls back instead.
 */
const COPY_ANSWER_MS = 5_000;

/** Thrown inside a COPY's transaction when some of its keys are there already: the caller takes its other way. */
export class AlreadyThere extends Error {}

/**
 * Throws AlreadyThere when `table` holds any of `ids` in its `request_id` key (one index probe
 * each). Checked before a COPY, which would fail on them in the way postgres.js cannot report
 * (see COPY_ANSWER_MS): a batch retried after a commit whose answer was lost, or written again.
 */
export async function refuseKnownIds(tx: TransactionSql, table: string, ids: string[]): Promise<void> {
  const [found] = await tx.unsafe(`select 1 from ${table} where request_id = any($1::text[]) limit 1`, [ids]);
  if (found) throw new AlreadyThere(`${table}: some of the batch is there already`);
}

/**
 * Sends `csv` through `copy` (a `COPY ... FROM STDIN WITH (FORMAT csv)` statement) inside the
 * transaction `tx`. Rejects when the server refuses it, or when it does not answer in time (a
 * refusal postgres.js does not report): the caller's transaction then rolls back whole.
 */
export async function copyCsv(tx: TransactionSql, copy: string, csv: string): Promise<void> {
  const writable = await tx.unsafe(copy).writable();
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      writable.once('error', reject);
      timer = setTimeout(() => reject(new Error('COPY: no answer from the database (refused, or too slow)')), COPY_ANSWER_MS);
      writable.end(csv, () => resolve());
    });
  } finally {
    clearTimeout(timer);
  }
}
