import { and, eq } from 'drizzle-orm';
import type { UsageMeter } from '../billing/meter';
import type { Database } from '../db/database';
import { ledgerAmounts } from '../db/schema';
import type { Logger } from '../log';
import type { MediaJob } from './store';

/** What settling a job needs: the meter (its kept reservation), the database (the ledger), the log. */
export interface SettlementDeps {
  db: Database;
  meter: UsageMeter;
  log: Logger;
}

/**
 * Charges a finished job its reserved line items, once: the reservation kept since the queue
 * request is resumed and settled (the meter's settlement is idempotent by request id, and
 * resume finds nothing once it is settled, so a second worker or a retry after a crash charges nothing more).
 */
export async function chargeJob(d: SettlementDeps, job: MediaJob, executionMs: number): Promise<void> {
  const ticket = await d.meter.resume(job.requestId);
  if (!ticket) return;
  await ticket.settle({ promptTokens: 0, completionTokens: 0, extras: job.charges, executionMs });
}

/** The charge the ledger holds for a request (its currency and the amount, positive), or null. */
async function ledgerCharge(db: Database, requestId: string) {
  const rows = await db
    .select({ currency: ledgerAmounts.currency, amount: ledgerAmounts.amountMicros })
    .from(ledgerAmounts)
    .where(and(eq(ledgerAmounts.requestId, requestId), eq(ledgerAmounts.kind, 'CHARGE')));
  if (rows.length === 0) return null;
  return { currency: rows[0]!.currency, amount: -rows.reduce((sum, r) => sum + Number(r.amount), 0) };
}

/**
 * Refunds a failed, refused or expired job in full, with a REFUND line in the ledger: the
 * reservation is settled at its price (the CHARGE line) and the same amount credited back
 * (idempotent by request id), so the balance ends exactly where it was and the ledger says
 * why. A reservation that the meter already gave back (it expired) charged nothing and
 * needs no refund. Returns whether the caller was made whole.
 */
export async function refundJob(d: SettlementDeps, job: MediaJob, reason: string): Promise<boolean> {
  const ticket = await d.meter.resume(job.requestId);
  if (ticket) await ticket.settle({ promptTokens: 0, completionTokens: 0, extras: job.charges, executionMs: 0 });
  // The settlement reaches the ledger in batches: write it now to read it back.
  await d.meter.flush();
  const charged = await ledgerCharge(d.db, job.requestId);
  if (!charged || charged.amount <= 0) return true;
  await d.meter.credit({
    accountId: job.accountId,
    currency: charged.currency,
    amountMicros: charged.amount,
    requestId: job.requestId,
    kind: 'REFUND',
    sku: `${job.modelId}-refund`,
    notes: `media job ${job.id}: ${reason}`.slice(0, 500),
  });
  d.log.info('jobs: refunded', { queueId: job.id, requestId: job.requestId, amountMicros: charged.amount, reason });
  return true;
}
