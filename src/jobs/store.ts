import { and, asc, eq, inArray, isNull, lt, lte, or, sql, type Placeholder } from 'drizzle-orm';
import type { Database } from '../db/database';
import { mediaJobs } from '../db/schema';
import { jobRowCacheOf, writing } from './row-cache';

/** A media job row. */
export type MediaJob = typeof mediaJobs.$inferSelect;
/** A new media job row. */
export type NewMediaJob = typeof mediaJobs.$inferInsert;
/** A job's state as the table keeps it. */
export type JobStatus = MediaJob['status'];

const rowsOf = <R>(result: unknown): R[] => (Array.isArray(result) ? result : (result as { rows: R[] }).rows) as R[];

/** A statement built once per database: drizzle otherwise rebuilds its SQL on every call (~65 µs each on PGlite). */
function perDatabase<S>(build: (db: Database) => S): (db: Database) => S {
  const built = new WeakMap<Database, S>();
  return (db) => {
    let statement = built.get(db);
    if (!statement) built.set(db, (statement = build(db)));
    return statement;
  };
}

/** The columns a queued job is written with (the others keep their defaults). */
const QUEUED = [
  'id',
  'kind',
  'accountId',
  'modelId',
  'requestId',
  'charges',
  'providerId',
  'upstreamModel',
  'upstreamId',
  'status',
  'nextPollAt',
  'deadlineAt',
  'createdAt',
] as const;
/** A job the provider accepted, as svc records it. */
export type QueuedJob = Pick<NewMediaJob, (typeof QUEUED)[number]>;
type Slots<K extends string> = { [P in K]: Placeholder<P> };
const slotsOf = <K extends string>(keys: readonly K[]) => Object.fromEntries(keys.map((k) => [k, sql.placeholder(k)])) as Slots<K>;

/** Values for `set` that hold placeholders: drizzle binds them at run time with each column's encoder, as it would a value, though its type names only values and SQL there. */
const settingSlots = (values: Record<string, unknown>) => values as Partial<NewMediaJob>;

// The whole row comes back (its defaults too) for the embedded database's row cache.
const insertStatement = perDatabase((db) => db.insert(mediaJobs).values(slotsOf(QUEUED)).returning().prepare('svc_insert_job'));

/** Records a job the provider accepted. */
export async function insertJob(db: Database, job: QueuedJob): Promise<void> {
  await writing(
    db,
    () => insertStatement(db).execute(job),
    (cache, rows, since) => rows.forEach((row) => cache.put(row, since)),
  );
}

const findStatement = perDatabase((db) =>
  db
    .select()
    .from(mediaJobs)
    .where(eq(mediaJobs.id, sql.placeholder('id')))
    .prepare('svc_find_job'),
);

/** The job with this queue id, or null (every retrieve poll asks; on the embedded database its cached row answers). */
export async function findJob(db: Database, id: string): Promise<MediaJob | null> {
  const cache = jobRowCacheOf(db);
  const cached = cache?.get(id);
  if (cached) return cached;
  const since = cache?.generation ?? 0;
  const [row] = await findStatement(db).execute({ id });
  if (row) cache?.put(row, since);
  return row ?? null;
}

/**
 * Claims up to `limit` running jobs due for a poll whose lease is free or has run out, for
 * `owner` until `now + leaseMs`. FOR UPDATE SKIP LOCKED lets instances claim at once without
 * waiting on each other's rows, and the lease keeps a job claimed between statements: one
 * worker polls a job at a time, and a crashed worker's jobs come back when its lease ends.
 */
export async function claimDue(db: Database, owner: string, now: number, leaseMs: number, limit: number): Promise<MediaJob[]> {
  // `at` is compared in the WHERE clause, where drizzle applies no column encoder to a placeholder: sent as text.
  return writing(
    db,
    () => claimStatement(db).execute({ owner, at: new Date(now).toISOString(), leaseUntil: new Date(now + leaseMs), limit }),
    (cache, rows, since) => rows.forEach((row) => cache.put(row, since)),
  );
}

// Prepared: the runner claims once per poll interval on every instance, idle or not, and
// drizzle rebuilt this statement's SQL on every call.
const claimStatement = perDatabase((db) => {
  const at = sql.placeholder('at');
  const due = db
    .select({ id: mediaJobs.id })
    .from(mediaJobs)
    .where(
      and(
        eq(mediaJobs.status, 'PROCESSING'),
        lte(mediaJobs.nextPollAt, at),
        or(isNull(mediaJobs.leaseUntil), lt(mediaJobs.leaseUntil, at)),
      ),
    )
    .orderBy(asc(mediaJobs.nextPollAt))
    .limit(sql.placeholder('limit'))
    .for('update', { skipLocked: true });
  return db
    .update(mediaJobs)
    .set(
      settingSlots({ leaseOwner: sql.placeholder('owner'), leaseUntil: sql.placeholder('leaseUntil'), polls: sql`${mediaJobs.polls} + 1` }),
    )
    .where(and(inArray(mediaJobs.id, due), eq(mediaJobs.status, 'PROCESSING')))
    .returning()
    .prepare('svc_claim_jobs');
});

// A job falls due at its next poll time, or when its lease runs out if that is later (greatest() skips a null).
const nextDueStatement = perDatabase((db) =>
  db
    .select({
      at: sql<number | null>`(extract(epoch from min(greatest(${mediaJobs.nextPollAt}, ${mediaJobs.leaseUntil}))) * 1000)::float8`,
    })
    .from(mediaJobs)
    .where(eq(mediaJobs.status, 'PROCESSING'))
    .prepare('svc_next_due_job'),
);

/**
 * On the embedded database, after a claim found nothing: reads when the next running job falls
 * due, which holds until the next write to `media_jobs` (all go through this file, in this one
 * process). On Postgres other instances write the table: nothing is kept.
 */
export async function noteNextDue(db: Database): Promise<void> {
  const cache = jobRowCacheOf(db);
  if (!cache) return;
  const since = cache.generation;
  const [row] = await nextDueStatement(db).execute();
  cache.noteIdleUntil(row?.at ?? Number.POSITIVE_INFINITY, since);
}

/** The time before which no job can fall due (ms): known on the embedded database after an empty claim, else 0. */
export function nothingDueBefore(db: Database): number {
  return jobRowCacheOf(db)?.idleUntil ?? 0;
}

const rescheduleStatement = perDatabase((db) =>
  db
    .update(mediaJobs)
    .set(settingSlots({ leaseOwner: null, leaseUntil: null, ...slotsOf(['nextPollAt'] as const) }))
    .where(and(eq(mediaJobs.id, sql.placeholder('id')), eq(mediaJobs.leaseOwner, sql.placeholder('owner'))))
    .returning({ id: mediaJobs.id })
    .prepare('svc_reschedule_job'),
);

/** Gives a still-running job back with its next poll time (every pending poll); false when the lease was lost meanwhile. */
export async function reschedule(db: Database, job: MediaJob, owner: string, nextPollAt: number): Promise<boolean> {
  const at = new Date(nextPollAt);
  const rows = await writing(
    db,
    () => rescheduleStatement(db).execute({ id: job.id, owner, nextPollAt: at }),
    (cache, rows) => rows.length > 0 && cache.patch(job.id, { leaseOwner: null, leaseUntil: null, nextPollAt: at }),
  );
  return rows.length > 0;
}

/** Extends `owner`'s lease on a job before a long step (a download); false when the lease was lost. */
export async function renewLease(db: Database, job: MediaJob, owner: string, until: number): Promise<boolean> {
  const leaseUntil = new Date(until);
  const rows = await writing(
    db,
    () =>
      db
        .update(mediaJobs)
        .set({ leaseUntil })
        .where(and(eq(mediaJobs.id, job.id), eq(mediaJobs.leaseOwner, owner), eq(mediaJobs.status, 'PROCESSING')))
        .returning({ id: mediaJobs.id }),
    (cache, rows) => rows.length > 0 && cache.patch(job.id, { leaseUntil }),
  );
  return rows.length > 0;
}

/** The columns a job ends with. */
const ENDED = ['status', 'error', 'outcome', 'mediaKey', 'mediaType', 'mediaBytes', 'finishedAt'] as const;
/** How a job ended: its state, why (failed), whether charged or refunded, its media (completed), when. */
export type JobEnd = Pick<NewMediaJob, 'status' | 'error' | 'outcome' | 'mediaKey' | 'mediaType' | 'mediaBytes'> & { finishedAt: number };

const finishStatement = perDatabase((db) =>
  db
    .update(mediaJobs)
    .set(settingSlots({ ...slotsOf(ENDED), leaseOwner: null, leaseUntil: null }))
    .where(
      and(eq(mediaJobs.id, sql.placeholder('id')), eq(mediaJobs.leaseOwner, sql.placeholder('owner')), eq(mediaJobs.status, 'PROCESSING')),
    )
    .returning({ id: mediaJobs.id })
    .prepare('svc_finish_job'),
);

/** Ends a job under `owner`'s lease (completed with its media, or failed/refused); false when the lease was lost. */
export async function finishJob(db: Database, job: MediaJob, owner: string, end: JobEnd): Promise<boolean> {
  const ended = {
    status: end.status,
    error: end.error ?? null,
    outcome: end.outcome ?? null,
    mediaKey: end.mediaKey ?? null,
    mediaType: end.mediaType ?? null,
    mediaBytes: end.mediaBytes ?? null,
    finishedAt: new Date(end.finishedAt),
  };
  const rows = await writing(
    db,
    () => finishStatement(db).execute({ id: job.id, owner, ...ended }),
    (cache, rows) => rows.length > 0 && cache.patch(job.id, { ...ended, leaseOwner: null, leaseUntil: null }),
  );
  return rows.length > 0;
}

/** Marks a completed job's media deleted (retrieve with delete_media_on_completion, or complete); false when it was not COMPLETED. */
export async function markDeleted(db: Database, id: string): Promise<boolean> {
  const rows = await writing(
    db,
    () =>
      db
        .update(mediaJobs)
        .set({ status: 'DELETED' })
        .where(and(eq(mediaJobs.id, id), eq(mediaJobs.status, 'COMPLETED')))
        .returning({ id: mediaJobs.id }),
    (cache, rows) => rows.length > 0 && cache.patch(id, { status: 'DELETED' }),
  );
  return rows.length > 0;
}

/** How many of a model's newest finished jobs its P80 time to finish is taken over. */
export const P80_WINDOW = 500;

/** The P80 time to finish (ms) of the model's newest completed jobs, or null before the first. */
export async function p80Ms(db: Database, modelId: string): Promise<number | null> {
  // The newest P80_WINDOW finished jobs: the whole history made each poll cost more as jobs accrued.
  const result = await db.execute(sql`
    select percentile_cont(0.8) within group (order by ms) as p80 from (
      select extract(epoch from (${mediaJobs.finishedAt} - ${mediaJobs.createdAt})) * 1000 as ms
      from ${mediaJobs}
      where ${mediaJobs.modelId} = ${modelId} and ${mediaJobs.status} in ('COMPLETED', 'DELETED') and ${mediaJobs.finishedAt} is not null
      order by ${mediaJobs.finishedAt} desc limit ${P80_WINDOW}) as recent`);
  const value = rowsOf<{ p80: number | string | null }>(result)[0]?.p80;
  return value === null || value === undefined ? null : Math.round(Number(value));
}

/** Job counts by state and the oldest running job's creation time, for /metrics and the logs. */
export async function jobStats(db: Database): Promise<{ counts: Record<string, number>; oldestRunning: number | null }> {
  const result = await db.execute(sql`
    select ${mediaJobs.status} as status, count(*)::int as n,
      min(case when ${mediaJobs.status} = 'PROCESSING' then ${mediaJobs.createdAt} end) as oldest
    from ${mediaJobs} group by ${mediaJobs.status}`);
  const counts: Record<string, number> = {};
  let oldestRunning: number | null = null;
  for (const row of rowsOf<{ status: string; n: number; oldest: string | Date | null }>(result)) {
    counts[row.status] = Number(row.n);
    if (row.oldest) oldestRunning = new Date(row.oldest).getTime();
  }
  return { counts, oldestRunning };
}

/** A job svc runs itself (a background response), due at once: its row with the `body` its handler runs from. */
export type HandledJob = Pick<NewMediaJob, 'id' | 'kind' | 'accountId' | 'modelId' | 'requestId' | 'deadlineAt' | 'createdAt' | 'body'>;

/** Records a job svc runs itself; its provider is chosen when it runs, so the upstream columns name the job. */
export async function insertHandledJob(db: Database, job: HandledJob): Promise<void> {
  await writing(
    db,
    () =>
      db
        .insert(mediaJobs)
        .values({
          ...job,
          charges: [],
          providerId: '',
          upstreamModel: job.modelId,
          upstreamId: job.id,
          status: 'PROCESSING',
          nextPollAt: job.createdAt,
        })
        .returning(),
    (cache, rows, since) => rows.forEach((row) => cache.put(row, since)),
  );
}

/**
 * Marks a running job CANCELLED, whoever holds it: the worker running it learns so when it
 * next renews its lease or ends the job (both require PROCESSING). Returns the lease as it
 * was (held until a future time: a worker is running it), or null when the job was not running.
 */
export async function cancelJob(db: Database, id: string, now: number): Promise<{ leaseUntil: Date | null } | null> {
  const finishedAt = new Date(now);
  const [row] = await writing(
    db,
    () =>
      db
        .update(mediaJobs)
        .set({ status: 'CANCELLED', finishedAt })
        .where(and(eq(mediaJobs.id, id), eq(mediaJobs.status, 'PROCESSING')))
        .returning({ leaseUntil: mediaJobs.leaseUntil }),
    (cache, rows) => rows.length > 0 && cache.patch(id, { status: 'CANCELLED', finishedAt }),
  );
  return row ?? null;
}

/** Records how a job that ended outside its lease (cancelled) was settled. */
export async function noteOutcome(db: Database, id: string, outcome: NonNullable<MediaJob['outcome']>): Promise<void> {
  await writing(
    db,
    () => db.update(mediaJobs).set({ outcome }).where(eq(mediaJobs.id, id)),
    (cache) => cache.patch(id, { outcome }),
  );
}
