import type { Database } from '../db/database';
import { pgliteOf } from '../db/embedded-client';
import type { mediaJobs } from '../db/schema';

type Row = typeof mediaJobs.$inferSelect;

/** Rows kept at most; the oldest written goes first (a finished job's row is read once or twice more, by its client). */
const MAX_ROWS = 4096;

/**
 * The embedded database's job rows as this process last wrote or read them, so a retrieve
 * poll answers without a select (2.3 a media job in bench/jobs-cost.ts). Sound because only
 * one process opens a PGlite directory and every change to `media_jobs` goes through
 * src/jobs/store.ts, which tells the cache: a full row it wrote (`put`), the columns it
 * changed (`patch`). A row read from the table is kept only when no write began or ended
 * while it was read (`generation`): PGlite runs one statement at a time, so a read that
 * overlapped a write may hold the row from before it.
 */
export class JobRowCache {
  private readonly rows = new Map<string, Row>();
  private writes = 0;
  private idle = 0;

  /** Counts writes: a read's row is kept only if the count did not move while it was read. */
  get generation(): number {
    return this.writes;
  }

  get(id: string): Row | undefined {
    return this.rows.get(id);
  }

  /** Marks a write to the table begun or ended: what was known of the next due job no longer holds. */
  wrote(): void {
    this.writes++;
    this.idle = 0;
  }

  /** No job can fall due before this time (ms; Infinity with none running, 0 when not known). */
  get idleUntil(): number {
    return this.idle;
  }

  /** Keeps when the next job falls due, read since generation `since`, unless a write began or ended meanwhile. */
  noteIdleUntil(at: number, since: number): void {
    if (since === this.writes) this.idle = at;
  }

  /**
   * Keeps a whole row read or returned since generation `since`; when another write began or
   * ended meanwhile, the row may be older than that write, and any kept copy is dropped instead.
   */
  put(row: Row, since: number): void {
    this.rows.delete(row.id);
    if (since !== this.writes) return;
    this.rows.set(row.id, row);
    if (this.rows.size > MAX_ROWS) this.rows.delete(this.rows.keys().next().value!);
  }

  /** Applies the columns a write changed to the kept row, if there is one. */
  patch(id: string, changed: Partial<Row>): void {
    const row = this.rows.get(id);
    if (row) this.rows.set(id, { ...row, ...changed });
  }
}

const caches = new WeakMap<object, JobRowCache>();

/** The job row cache of an embedded database, or null on Postgres (other instances change the rows there). */
export function jobRowCacheOf(db: Database): JobRowCache | null {
  const client = pgliteOf(db);
  if (!client) return null;
  let cache = caches.get(client);
  if (!cache) caches.set(client, (cache = new JobRowCache()));
  return cache;
}

/**
 * Runs a write to `media_jobs` and tells the embedded database's row cache (src/jobs/row-cache.ts)
 * that it began and ended; `then` applies the write's result to the cache before the end is told.
 */
export async function writing<T>(
  db: Database,
  run: () => Promise<T>,
  then: (cache: JobRowCache, result: T, since: number) => void,
): Promise<T> {
  const cache = jobRowCacheOf(db);
  if (!cache) return run();
  cache.wrote();
  const since = cache.generation;
  try {
    const result = await run();
    then(cache, result, since);
    return result;
  } finally {
    cache.wrote();
  }
}
