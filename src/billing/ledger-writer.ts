import { sql } from 'drizzle-orm';
import type { Database } from '../db/database';
import { balances, ledgerCharges, ledgerEntries } from '../db/schema';
import type { Logger } from '../log';
import { countBilledCharges, countDeadLetters, reportLedgerBacklog, reportLedgerFailing } from '../metrics';
import { pgliteOf } from '../db/embedded-client';
import { copyLedgerBatch } from './ledger-copy';
import { copyLedgerBatchPostgres } from './ledger-copy-postgres';
import { postgresOf } from '../db/postgres-copy';
import { describeDbError, isRowError, writeDeadLetter } from './ledger-dead-letters';
import type { LedgerCharge } from './ledger-row';
import { SlicePacer } from './slice-pacer';
import type { BillingStore } from './store';

/** The ledger writer: moves queued settlements into the database in batches. */
export interface LedgerWriter {
  /** Writes everything queued now (returns when the queue is empty or another writer holds it). */
  flush(): Promise<void>;
  /** Why the ledger cannot write (its last attempt failed and nothing was written since), or null. */
  problem(): string | null;
  /** Final flush, then stops the timer. */
  close(): Promise<void>;
}

/**
 * Inserts a batch of charges (one `ledger_charges` row per settled request) and adds the
 * charges actually inserted to `balances`, in one statement (so one transaction). Charges
 * already present (a batch replayed after a crash between the commit and the queue trim)
 * are skipped by the request-id key and change no balance; in a batch read back from a
 * journal, so are charges an older version wrote as per-line CHARGE rows of `ledger_entries`.
 * Returns the number inserted.
 *
 * The batch goes in as ONE JSON parameter expanded by `json_to_recordset`: a query builder
 * binding a dozen parameters per row spent more CPU building and parsing the statement than the
 * database spent inserting (profiled under load: 20 % of the process in drizzle's SQL
 * assembly). The balance sums are made in SQL from the inserted rows, so no row travels
 * back to JavaScript (on PGlite, parsing a RETURNING row per ledger row ran on svc's own
 * thread). Amounts are JSON integers read as bigint, so no value passes through a float;
 * balance rows are locked in (account, currency) order, the same in every writer.
 */
export async function writeLedgerBatch(
  db: Database,
  rows: LedgerCharge[],
  opts: { pacer?: SlicePacer; replayed?: boolean } = {},
): Promise<number> {
  if (rows.length === 0) return 0;
  // Embedded: COPY when no row of the batch is there yet (always, but for a replayed batch).
  // A batch read back from a journal skips it: COPY cannot see a charge an older version
  // wrote as per-line rows in ledger_entries.
  const pg = opts.replayed ? null : pgliteOf(db);
  if (pg) {
    const copied = await copyLedgerBatch(pg, rows, opts.pacer);
    if (copied !== null) return copied;
  }
  // Postgres: the same COPY, unless the batch is one row (the writer's row-by-row retry, which
  // wants the error of the row itself) or read back from a journal.
  const client = opts.replayed || rows.length === 1 ? null : postgresOf(db);
  if (client) {
    const copied = await copyLedgerBatchPostgres(client, rows);
    if (copied !== null) return copied;
  }
  return insertLedgerBatch(db, rows, opts.replayed ?? false);
}

/**
 * The batch as ONE JSON parameter expanded by `json_to_recordset` (see writeLedgerBatch): the
 * way that skips charges already present and reports a refused row's error. Returns the number inserted.
 */
export async function insertLedgerBatch(db: Database, rows: LedgerCharge[], replayed: boolean): Promise<number> {
  const json = JSON.stringify(rows);
  // Only a journal read back can hold a charge an older version wrote per line: other batches skip the probe per row.
  const olderCharges = replayed
    ? sql`where not exists (select 1 from ${ledgerEntries} e where e.request_id = r."requestId" and e.kind = 'CHARGE')`
    : sql``;
  const result = await db.execute(sql`
    with inserted as (
      insert into ${ledgerCharges} (account_id, api_key_id, request_id, currency, model_id, lines, amount_micros, prompt_tokens, completion_tokens, execution_ms, created_at, notes)
      select r."accountId", r."apiKeyId", r."requestId", r.currency, r."modelId", r.lines, r.amount, r."promptTokens", r."completionTokens", r."executionMs", to_timestamp(r.at / 1000.0), r.notes
      from json_to_recordset(${json}::json) as r("accountId" uuid, "apiKeyId" uuid, "requestId" text, currency text, "modelId" text, lines json, amount bigint, "promptTokens" integer, "completionTokens" integer, "executionMs" integer, at bigint, notes text)
      ${olderCharges}
      on conflict do nothing
      returning account_id, api_key_id, currency, model_id, lines, amount_micros, created_at
    ), daily as (
      insert into usage_daily (account_id, day, model_key, sku, api_key, currency, amount_micros, units)
      select i.account_id, (i.created_at at time zone 'UTC')::date, coalesce(i.model_id, i.lines->0->>'sku', ''), coalesce(l.sku, ''),
        coalesce(i.api_key_id::text, ''), i.currency, sum(coalesce(l.amount, 0)), sum(usage_daily_units(l.units))
      from inserted i cross join lateral json_to_recordset(i.lines) as l(sku text, units text, amount bigint)
      group by 1, 2, 3, 4, 5, 6
    ), applied as (
      insert into ${balances} (account_id, currency, amount_micros)
      select account_id, currency, sum(amount_micros) from inserted group by account_id, currency order by account_id, currency
      on conflict (account_id, currency) do update set amount_micros = ${balances}.amount_micros + excluded.amount_micros, updated_at = now()
    )
    select count(*)::int as inserted from inserted`);
  const out = (Array.isArray(result) ? result : (result as { rows: { inserted: number }[] }).rows) as { inserted: number }[];
  return Number(out[0]?.inserted ?? 0);
}

/**
 * Starts the periodic writer (an unref'd timer, so it never keeps the process alive). A
 * batch the database cannot take (connection lost, timeout) stays queued and is retried on
 * the next tick; nothing is lost or doubled. A batch the database refuses for some of its
 * rows (a foreign key, a bad value) is written row by row: the refused rows go to
 * `ledger_dead_letters` with the error, counted and logged, and the others are written, so
 * one bad row never blocks the rows behind it.
 */
export function startLedgerWriter(opts: {
  db: Database;
  store: BillingStore;
  log: Logger;
  intervalMs: number;
  batchSize: number;
  /** On the embedded database, about the longest one statement of a batch holds svc's thread (see copyLedgerBatch). */
  sliceMs: number;
}): LedgerWriter {
  let running: Promise<void> | null = null;
  let closed = false;
  let failing: string | null = null;
  const pacer = new SlicePacer(opts.sliceMs);

  /** Writes the charges one by one, moving those the database refuses to the dead letters; returns those written. */
  async function writeEach(charges: LedgerCharge[], replayed: boolean | undefined): Promise<LedgerCharge[]> {
    const written: LedgerCharge[] = [];
    for (const charge of charges) {
      try {
        await writeLedgerBatch(opts.db, [charge], { replayed });
        written.push(charge);
      } catch (error) {
        if (!isRowError(error)) throw error;
        await writeDeadLetter(opts.db, charge, error);
        countDeadLetters(1);
        const { requestId, accountId, currency, amount } = charge;
        opts.log.error('billing: the database refused a settlement; it is kept in ledger_dead_letters', {
          requestId,
          accountId,
          currency,
          amount,
          error: describeDbError(error),
        });
      }
    }
    return written;
  }

  /** Writes one batch; the charges written (all, unless some went to the dead letters). */
  async function write(charges: LedgerCharge[], replayed: boolean | undefined): Promise<LedgerCharge[]> {
    try {
      await writeLedgerBatch(opts.db, charges, { pacer, replayed });
      return charges;
    } catch (error) {
      if (!isRowError(error)) throw error;
      return writeEach(charges, replayed);
    }
  }

  async function drain() {
    for (;;) {
      // Requests waiting behind a backlog are served between its batches, not after all of them.
      await pacer.pause();
      const batch = await opts.store.takeBatch(opts.batchSize);
      if (!batch) return;
      try {
        countBilledCharges(await write(batch.charges, batch.replayed));
      } catch (error) {
        failing = describeDbError(error);
        await batch.abandon();
        throw error;
      }
      failing = null;
      await batch.ack();
      // Best effort: a mark left behind only delays deleting a scratch account until it lapses.
      await opts.store
        .written(batch.charges)
        .catch((error) => opts.log.warn('billing: unwritten marks not cleared', { error: String(error) }));
    }
  }

  /** One drain at a time per process; callers of flush() wait for the running one and then drain again. */
  function flush(): Promise<void> {
    const previous = running ?? Promise.resolve();
    const next = previous.catch(() => {}).then(drain);
    // `running` only orders the drains; the caller of flush() sees the failure through `next`,
    // so the bookkeeping promise must not reject unhandled as well.
    running = next
      .catch(() => {})
      .finally(() => {
        if (running === guarded) running = null;
      });
    const guarded = running;
    return next;
  }

  const timer = setInterval(function writeLedger() {
    if (running) return;
    flush().catch((error) => opts.log.error('billing: ledger write failed, will retry', { error: String(error) }));
  }, opts.intervalMs);
  timer.unref?.();
  reportLedgerBacklog(() => opts.store.queued());
  reportLedgerFailing(() => failing !== null);

  return {
    flush,
    problem: () => failing,
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(timer);
      try {
        await flush();
      } finally {
        reportLedgerBacklog(null);
        reportLedgerFailing(null);
        opts.store.close?.();
      }
    },
  };
}
