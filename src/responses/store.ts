import { and, eq, sql } from 'drizzle-orm';
import type { Database } from '../db/database';
import { storedResponses } from '../db/schema';
import { pgliteOf } from '../db/embedded-client';
import type { Logger } from '../log';
import { copyStoredResponses } from './store-copy';
import { armedFlush } from '../lifecycle/armed-flush';

/** A response item as stored: an input or output item of the Responses API, with its `id`. */
export type StoredItem = Record<string, unknown> & { type?: string; id?: string };

/** One stored response: its own input items and the Response object, kept per account. */
export interface StoredResponse {
  id: string;
  accountId: string;
  previousResponseId: string | null;
  /** The first response of the conversation (itself when it has no previous one). */
  rootId: string;
  status: string;
  input: StoredItem[];
  response: Record<string, unknown>;
  /** Epoch ms. */
  createdAt: number;
  expiresAt: number;
}

/**
 * Stored responses, written off the response's path: `save` queues (a Map insert, no I/O)
 * and a timer writes the queue in one INSERT per period; a failed write is logged and
 * retried on the next period, a few times, never surfaced to a client. Reads see the queue
 * first, so a conversation's next turn finds a response whose write has not landed yet.
 */
export interface ResponseStore {
  /** Queues a response (or its newer state, by id) for writing. */
  save(response: StoredResponse): void;
  /** The account's response, or null (unknown, another account's, deleted or expired). */
  get(accountId: string, id: string): Promise<StoredResponse | null>;
  /** Deletes the account's response; false when there was none. */
  delete(accountId: string, id: string): Promise<boolean>;
  /** Writes everything queued now. */
  flush(): Promise<void>;
  /** Deletes the expired responses; how many went. */
  sweep(): Promise<number>;
  close(): Promise<void>;
}

/** A queued response and how many writes of it failed. */
type Entry = { response: StoredResponse; attempts: number };

/** A JSON value without NUL characters in its strings. */
function withoutNul<T>(value: T): T {
  const json = JSON.stringify(value);
  // Only an escape of NUL, not the text `\\u0000` (an escaped backslash before `u0000`).
  return json.includes('\\u0000') ? (JSON.parse(json.replace(/(?<!\\)((?:\\\\)*)\\u0000/g, '$1')) as T) : value;
}

/** Attempts before a queued response that keeps failing to write is dropped (and logged). */
const MAX_ATTEMPTS = 5;

/**
 * Whether `id` could name a stored response: Postgres refuses a NUL in text, so such an id
 * (sent as `previous_response_id`, an `item_reference` or a path) is one no response has,
 * not a failed query (the inference routes do not take the NUL guard: their text is not stored).
 */
const storableId = (id: string) => !id.includes('\u0000');

/** The drizzle-backed store (PGlite or Postgres). */
export function createResponseStore(
  db: Database,
  opts: { log: Logger; now: () => number; flushIntervalMs: number; sweepIntervalMs: number },
): ResponseStore {
  const { log, now } = opts;
  let queued = new Map<string, Entry>();
  /** The batch being written: still readable until its INSERT commits. */
  let writing = new Map<string, Entry>();
  let flushing: Promise<void> = Promise.resolve();

  const pending = (id: string) => queued.get(id)?.response ?? writing.get(id)?.response;

  const pg = pgliteOf(db);

  async function insert(entries: Entry[]): Promise<void> {
    // A first attempt on the embedded database goes by COPY; a retried one, or a batch COPY refused, by the INSERT below.
    if (
      pg &&
      entries.every((e) => e.attempts === 0) &&
      (await copyStoredResponses(
        pg,
        entries.map((e) => e.response),
      ))
    )
      return;
    const rows = entries.map(({ response: r, attempts }) => ({
      id: r.id,
      accountId: r.accountId,
      previousResponseId: r.previousResponseId,
      rootId: r.rootId,
      status: r.status,
      // Postgres refuses NUL in jsonb text: a retried row (which may have failed for that) goes without it.
      input: attempts > 0 ? withoutNul(r.input) : r.input,
      response: attempts > 0 ? withoutNul(r.response) : r.response,
      createdAt: new Date(r.createdAt),
      expiresAt: new Date(r.expiresAt),
    }));
    // A later state of a response (a background one finishing) replaces the earlier row.
    await db
      .insert(storedResponses)
      .values(rows)
      .onConflictDoUpdate({ target: storedResponses.id, set: { status: sql`excluded.status`, response: sql`excluded.response` } });
  }

  async function write(batch: Map<string, Entry>): Promise<void> {
    const entries = [...batch];
    // A batch that failed is retried a row at a time, so one row the database refuses cannot hold back the rest.
    const groups = entries.some(([, e]) => e.attempts > 0) ? entries.map((e) => [e]) : [entries];
    for (const group of groups) {
      try {
        await insert(group.map(([, e]) => e));
      } catch (error) {
        for (const [id, entry] of group) {
          if (++entry.attempts >= MAX_ATTEMPTS)
            log.error('responses: a stored response could not be written, dropped', { id, error: String(error) });
          else if (!queued.has(id)) queued.set(id, entry);
        }
        log.warn('responses: writing stored responses failed, will retry', { count: group.length, error: String(error) });
      }
    }
  }

  function flush(): Promise<void> {
    flushing = flushing.then(async () => {
      if (queued.size === 0) return;
      writing = queued;
      queued = new Map();
      await write(writing);
      writing = new Map();
    });
    return flushing;
  }

  // Armed by the first response queued: a 100 ms interval woke an idle svc 10 times a second.
  const flushTimer = armedFlush(opts.flushIntervalMs, flush, () => queued.size > 0);

  async function sweep(): Promise<number> {
    const gone = await db
      .delete(storedResponses)
      .where(sql`${storedResponses.expiresAt} <= ${new Date(now()).toISOString()}`)
      .returning({ id: storedResponses.id });
    return gone.length;
  }
  const sweepTimer = setInterval(function sweepStoredResponses() {
    sweep().catch((error) => log.warn('responses: the expiry sweep failed, will retry', { error: String(error) }));
  }, opts.sweepIntervalMs);
  sweepTimer.unref?.();

  return {
    save(response) {
      const entry = queued.get(response.id);
      if (entry) entry.response = response;
      else queued.set(response.id, { response, attempts: 0 });
      flushTimer.arm();
    },

    async get(accountId, id) {
      if (!storableId(id)) return null;
      const local = pending(id);
      if (local) return local.accountId === accountId && local.expiresAt > now() ? local : null;
      const [row] = await db
        .select()
        .from(storedResponses)
        .where(
          and(
            eq(storedResponses.id, id),
            eq(storedResponses.accountId, accountId),
            sql`${storedResponses.expiresAt} > ${new Date(now()).toISOString()}`,
          ),
        )
        .limit(1);
      if (!row) return null;
      return { ...row, createdAt: row.createdAt.getTime(), expiresAt: row.expiresAt.getTime() };
    },

    async delete(accountId, id) {
      if (!storableId(id)) return false;
      // Written first, so that a queued response cannot land after its deletion.
      if (pending(id)) await flush();
      const gone = await db
        .delete(storedResponses)
        .where(and(eq(storedResponses.id, id), eq(storedResponses.accountId, accountId)))
        .returning({ id: storedResponses.id });
      return gone.length > 0;
    },

    flush,
    sweep,

    async close() {
      flushTimer.stop();
      clearInterval(sweepTimer);
      await flush();
    },
  };
}
