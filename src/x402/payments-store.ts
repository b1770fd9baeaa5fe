import { and, eq, inArray, lt, sql } from 'drizzle-orm';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import type { Database } from '../db/database';
import { walletPayments } from '../db/schema';

/** A stored top-up, as the top-up flow and recovery read it. */
export type PaymentRow = typeof walletPayments.$inferSelect;

/** What a new claim records: enough to settle and credit it again after a crash. */
export interface PaymentClaim {
  paymentId: string;
  accountId: string;
  network: string;
  amountMicros: number;
  nonce: string;
  payer: string;
  payload: PaymentPayload;
  requirements: PaymentRequirements;
}

/**
 * Claims a payment for settlement: inserts it as pending, or takes over a failed row or a
 * pending one idle for `staleMs` (its settlement timed out or its process died). Returns the
 * claimed row, or the row that holds the payment when it is not claimable (in progress or done).
 */
export async function claimPayment(
  db: Database,
  claim: PaymentClaim,
  staleMs: number,
): Promise<{ claimed: true; row: PaymentRow } | { claimed: false; row: PaymentRow }> {
  const [inserted] = await db
    .insert(walletPayments)
    .values({ ...claim, status: 'pending' })
    .onConflictDoNothing({ target: walletPayments.paymentId })
    .returning();
  if (inserted) return { claimed: true, row: inserted };
  // An ISO string: postgres.js does not serialise a Date inside a raw SQL fragment.
  const staleBefore = new Date(Date.now() - staleMs).toISOString();
  const [taken] = await db
    .update(walletPayments)
    .set({ status: 'pending', error: null, updatedAt: sql`now()` })
    .where(
      and(
        eq(walletPayments.paymentId, claim.paymentId),
        sql`(${walletPayments.status} = 'failed' OR (${walletPayments.status} = 'pending' AND ${walletPayments.updatedAt} < ${staleBefore}::timestamptz))`,
      ),
    )
    .returning();
  if (taken) return { claimed: true, row: taken };
  const [held] = await db.select().from(walletPayments).where(eq(walletPayments.paymentId, claim.paymentId)).limit(1);
  if (!held) throw new Error('x402: payment row vanished during claim');
  return { claimed: false, row: held };
}

/** Records the facilitator's confirmation before the credit, so a crash in between is recoverable. */
export async function markSettled(db: Database, paymentId: string, transaction: string): Promise<void> {
  await db
    .update(walletPayments)
    .set({ status: 'settled', transaction, updatedAt: sql`now()` })
    .where(and(eq(walletPayments.paymentId, paymentId), inArray(walletPayments.status, ['pending', 'settled'])));
}

/** Marks a settled payment credited; run inside the credit's transaction. */
export async function markCredited(tx: Database, paymentId: string): Promise<void> {
  await tx
    .update(walletPayments)
    .set({ status: 'credited', updatedAt: sql`now()` })
    .where(eq(walletPayments.paymentId, paymentId));
}

/** Marks a payment whose settlement definitely failed; it may be claimed again with the same payload. */
export async function markFailed(db: Database, paymentId: string, reason: string): Promise<void> {
  await db
    .update(walletPayments)
    .set({ status: 'failed', error: reason.slice(0, 500), updatedAt: sql`now()` })
    .where(and(eq(walletPayments.paymentId, paymentId), eq(walletPayments.status, 'pending')));
}

/** Payments left unfinished (pending older than `olderThanMs`, or settled and not credited), for start-up recovery. */
export async function unfinishedPayments(db: Database, olderThanMs: number): Promise<PaymentRow[]> {
  const before = new Date(Date.now() - olderThanMs);
  return db
    .select()
    .from(walletPayments)
    .where(
      sql`(${walletPayments.status} = 'settled' OR (${walletPayments.status} = 'pending' AND ${lt(walletPayments.updatedAt, before)}))`,
    )
    .limit(1000);
}
