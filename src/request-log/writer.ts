import { sql } from 'drizzle-orm';
import type { Database } from '../db/database';
import { requestLog, requestLogBodies } from '../db/schema';
import type { Logger } from '../log';
import { countRequestLogDropped, reportRequestLogBacklog } from '../metrics';
import type { ObservabilityConfig } from './config';
import { bodyRow, type BodyRow, type CapturedBodies } from './bodies';
import type { RequestRecord } from './record';
import { storable } from './storable';
import { copyRequestLogBatch } from './copy';
import { pgliteOf } from '../db/embedded-client';
import { postgresOf } from '../db/postgres-copy';
import { armedFlush } from '../lifecycle/armed-flush';
import { copyRequestLogBatchPostgres } from './copy-postgres';

export type { RequestRecord } from './record';

/** The request log's writer: queues records and writes them in batches, off the response's path. */
export interface RequestRecorder {
  /**
   * Queues one record (dropped and counted when the queue is full). `late` is read when the
   * batch is written: a stream's settlement can land after the stream's end is reported.
   */
  add(record: RequestRecord, late?: () => Partial<RequestRecord> | null, bodies?: CapturedBodies): void;
  /** Writes everything queued now. */
  flush(): Promise<void>;
  /** Deletes the rows older than the retention, as of `now` (epoch ms); returns how many. */
  sweep(now?: number): Promise<number>;
  close(): Promise<void>;
}

/** How long `close` waits for the queued rows to be written. */
const CLOSE_FLUSH_MS = 3_000;

/** Whether the database refused a row's data (SQLSTATE class 22 or 23), not the call itself. */
function isDataError(error: unknown): boolean {
  const code = ((error as { cause?: { code?: unknown } })?.cause ?? (error as { code?: unknown }))?.code;
  return typeof code === 'string' && (code.startsWith('22') || code.startsWith('23'));
}

/**
 * Inserts a batch: by COPY when the whole batch goes in that way (on the embedded database
 * src/request-log/copy.ts, on Postgres copy-postgres.ts), else as ONE JSON parameter expanded by `json_to_recordset` (the ledger writer's
 * reason: a builder binding 23 parameters per row costs more CPU than the insert). A request id
 * already logged is skipped, so a batch retried after a lost answer doubles nothing.
 */
async function writeBatch(db: Database, rows: RequestRecord[]): Promise<void> {
  const pg = pgliteOf(db);
  if (pg && (await copyRequestLogBatch(pg, rows))) return;
  // On Postgres the same COPY, but for one row (the row-by-row retry, which wants its own error).
  const client = pg || rows.length === 1 ? null : postgresOf(db);
  if (client && (await copyRequestLogBatchPostgres(client, rows))) return;
  await insertRecords(db, rows);
}

/** The batch as ONE JSON parameter expanded by `json_to_recordset`, skipping request ids already logged. */
export async function insertRecords(db: Database, rows: RequestRecord[]): Promise<void> {
  await db.execute(sql`
    insert into ${requestLog} (request_id, at, account_id, api_key_id, method, route, model, replica, status, error, latency_ms, ttfb_ms, stream, stages, upstream_ms, cache, guardrails, prompt_tokens, completion_tokens, cost_micros, currency, client_ip, user_agent)
    select r."requestId", to_timestamp(r.at / 1000.0), r."accountId", r."apiKeyId", r.method, r.route, r.model, r.replica, r.status, r.error, r."latencyMs", r."ttfbMs", r.stream, r.stages, r."upstreamMs", r.cache, r.guardrails, r."promptTokens", r."completionTokens", r."costMicros", r.currency, r."clientIp", r."userAgent"
    from json_to_recordset(${JSON.stringify(rows, storable)}::json) as r("requestId" text, at bigint, "accountId" uuid, "apiKeyId" uuid, method text, route text, model text, replica text, status integer, error text, "latencyMs" integer, "ttfbMs" integer, stream text, stages jsonb, "upstreamMs" integer, cache text, guardrails text, "promptTokens" integer, "completionTokens" integer, "costMicros" bigint, currency text, "clientIp" text, "userAgent" text)
    on conflict do nothing`);
}

/** Inserts a batch's captured bodies the way `writeBatch` inserts records (and as idempotently). */
async function writeBodies(db: Database, batch: Queued[]): Promise<void> {
  const rows = bodyRowsOf(batch);
  if (rows.length === 0) return;
  await db.execute(sql`
    insert into ${requestLogBodies} (request_id, at, request, request_truncated, response, response_truncated)
    select r."requestId", to_timestamp(r.at / 1000.0), r.request, r."requestTruncated", r.response, r."responseTruncated"
    from json_to_recordset(${JSON.stringify(rows, storable)}::json) as r("requestId" text, at bigint, request text, "requestTruncated" boolean, response text, "responseTruncated" boolean)
    on conflict do nothing`);
}

type Queued = RequestRecord | { record: RequestRecord; late?: () => Partial<RequestRecord> | null; bodies?: CapturedBodies };

/** A queued record with what it learned late. */
function completed(q: Queued): RequestRecord {
  if (!('record' in q)) return q;
  const late = q.late?.();
  return late ? { ...q.record, ...late } : q.record;
}

/** The body rows of a batch: serialised and redacted here, at write time, off the response's path. */
function bodyRowsOf(batch: Queued[]): BodyRow[] {
  const rows: BodyRow[] = [];
  for (const q of batch) if ('record' in q && q.bodies) rows.push(bodyRow(q.record.requestId, q.record.at, q.bodies));
  return rows;
}

/**
 * Starts the request log's writer and sweeper (unref'd timers). Unlike the ledger, a lost row
 * costs nobody money, so nothing is retried forever: a batch whose data the database refuses is
 * written row by row (any other failure drops the batch), a row it still refuses is dropped (counted, logged once per batch), and the next
 * batch goes in regardless, so one bad row or a database outage never blocks later requests' rows.
 */
export function startRequestRecorder(opts: {
  db: Database;
  log: Logger;
  now: () => number;
  config: ObservabilityConfig['requestLog'];
}): RequestRecorder {
  const { db, log, config } = opts;
  let queue: Queued[] = [];
  let running: Promise<void> | null = null;
  /** Records taken from the queue whose batch is being written. */
  let writing = 0;
  reportRequestLogBacklog(() => queue.length + writing);

  function dropBatch(rows: number, error: unknown): void {
    countRequestLogDropped(rows);
    log.warn('request log: a batch could not be written and was dropped', { dropped: rows, error: String(error) });
  }

  async function writeEach(rows: RequestRecord[]): Promise<void> {
    let dropped = 0;
    let last: unknown = null;
    for (const row of rows) {
      try {
        await writeBatch(db, [row]);
      } catch (error) {
        dropped++;
        last = error;
      }
    }
    if (dropped === 0) return;
    countRequestLogDropped(dropped);
    log.warn('request log: rows the database refused were dropped', { dropped, error: String(last) });
  }

  async function drain(): Promise<void> {
    while (queue.length > 0) {
      const taken = queue.length <= config.batchSize ? queue : queue.slice(0, config.batchSize);
      queue = taken === queue ? [] : queue.slice(taken.length);
      const batch = taken.map(completed);
      writing = batch.length;
      try {
        await writeBatch(db, batch);
      } catch (error) {
        // Row by row only when a row's data was refused; an outage or a deadline would cost a
        // deadline per row (500 × 1.5 s), so the batch is dropped and the next one tried.
        if (isDataError(error)) await writeEach(batch);
        else dropBatch(batch.length, error);
      } finally {
        writing = 0;
      }
      // Bodies are dropped as a batch, never retried: the next batch goes in regardless.
      await writeBodies(db, taken).catch((e) => log.warn('request log: captured bodies were dropped', { error: String(e) }));
    }
  }

  /**
   * Drains the queue after any drain already under way. `running` is the very promise whose end
   * clears it (it never rejects, so a failed drain does not skip the next): were it another one,
   * it would never clear, and the timer, seeing a drain forever under way, would write nothing
   * more: every record held in the heap until close or `maxQueued`.
   */
  function flush(): Promise<void> {
    const next = (running ?? Promise.resolve()).then(drain);
    const cleared: Promise<void> = next.then(clear, clear);
    function clear(): void {
      if (running === cleared) running = null;
    }
    running = cleared;
    return next;
  }

  async function sweep(now = opts.now()): Promise<number> {
    const cutoff = new Date(now - config.retentionDays * 86_400_000);
    const result = await db.execute(
      sql`with gone as (delete from ${requestLog} where at < ${cutoff.toISOString()}::timestamptz returning 1) select count(*)::int as n from gone`,
    );
    const rows = (Array.isArray(result) ? result : (result as { rows: { n: number }[] }).rows) as { n: number }[];
    await db.execute(sql`delete from ${requestLogBodies} where at < ${cutoff.toISOString()}::timestamptz`);
    return Number(rows[0]?.n ?? 0);
  }

  // Armed by the first row queued, not an interval, so an idle svc is not woken for nothing.
  const writer = armedFlush(
    config.flushIntervalMs,
    function writeRequestLog() {
      return flush().catch((error) => log.error('request log: write failed', { error: String(error) }));
    },
    () => queue.length > 0,
  );
  const sweeper = setInterval(function sweepRequestLog() {
    sweep().catch((error) => log.warn('request log: sweep failed', { error: String(error) }));
  }, config.sweepIntervalMs);
  sweeper.unref?.();

  return {
    add(record, late, bodies) {
      if (queue.length >= config.maxQueued) return countRequestLogDropped(1);
      queue.push(late || bodies ? { record, late, bodies } : record);
      writer.arm();
    },
    flush,
    sweep,
    async close() {
      reportRequestLogBacklog(null);
      writer.stop();
      clearInterval(sweeper);
      // Bounded: a shutdown must not wait on a database that stopped answering for rows nobody pays for.
      const timer = Promise.withResolvers<void>();
      const t = setTimeout(timer.resolve, CLOSE_FLUSH_MS);
      await Promise.race([flush(), timer.promise]);
      clearTimeout(t);
    },
  };
}
