import { sql } from 'drizzle-orm';
import type { Database } from '../db/database';
import { balances, ledgerEntries } from '../db/schema';
import type { Logger } from '../log';
import type { LedgerRow } from './ledger-row';
import type { BillingStore } from './store';

/** The ledger writer: moves queued settlements into the database in batches. */
export interface LedgerWriter {
  /** Writes everything queued now (returns when the queue is empty or another writer holds it). */
  flush(): Promise<void>;
  /** Final flush, then stops the timer. */
  close(): Promise<void>;
}

/**
 * Inserts a batch of ledger rows and applies the rows actually inserted to `balances`, in
 * one transaction. Rows already present (a batch replayed after a crash between the commit
 * and the queue trim) are skipped by the unique index and change no balance.
 */
export async function writeLedgerBatch(db: Database, rows: LedgerRow[]): Promise<number> {
  if (rows.length === 0) return 0;
  return db.transaction(async (tx) => {
    const inserted = await tx
      .insert(ledgerEntries)
      .values(
        rows.map((r) => ({
          accountId: r.accountId,
          apiKeyId: r.apiKeyId,
          requestId: r.requestId,
          kind: 'CHARGE' as const,
          currency: r.currency,
          sku: r.sku,
          modelId: r.modelId,
          units: r.units,
          pricePerUnitUsd: r.pricePerUnitUsd,
          amountMicros: r.amount,
          notes: r.notes,
          promptTokens: r.promptTokens,
          completionTokens: r.completionTokens,
          executionMs: r.executionMs,
          createdAt: new Date(r.at),
        })),
      )
      .onConflictDoNothing()
      .returning({ accountId: ledgerEntries.accountId, currency: ledgerEntries.currency, amount: ledgerEntries.amountMicros });
    const sums = new Map<string, { accountId: string; currency: LedgerRow['currency']; amount: number }>();
    for (const r of inserted) {
      const key = `${r.accountId}:${r.currency}`;
      const sum = sums.get(key);
      if (sum) sum.amount += r.amount;
      else sums.set(key, { ...r });
    }
    // Sorted so two writers touching the same accounts lock the balance rows in one order.
    for (const s of [...sums.values()].sort((a, b) => (a.accountId + a.currency < b.accountId + b.currency ? -1 : 1)))
      await tx
        .insert(balances)
        .values({ accountId: s.accountId, currency: s.currency, amountMicros: s.amount })
        .onConflictDoUpdate({ target: [balances.accountId, balances.currency], set: { amountMicros: sql`${balances.amountMicros} + ${s.amount}`, updatedAt: sql`now()` } });
    return inserted.length;
  });
}

/**
 * Starts the periodic writer (an unref'd timer, so it never keeps the process alive). A
 * failed batch stays queued and is retried on the next tick; nothing is lost or doubled.
 */
export function startLedgerWriter(opts: { db: Database; store: BillingStore; log: Logger; intervalMs: number; batchSize: number }): LedgerWriter {
  let running: Promise<void> | null = null;
  let closed = false;

  async function drain() {
    for (;;) {
      const batch = await opts.store.takeBatch(opts.batchSize);
      if (!batch) return;
      try {
        await writeLedgerBatch(opts.db, batch.rows);
      } catch (error) {
        await batch.abandon();
        throw error;
      }
      await batch.ack();
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

  return {
    flush,
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(timer);
      await flush();
    },
  };
}
