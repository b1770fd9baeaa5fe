import { eq, lte } from 'drizzle-orm';
import type { Database } from '../db/database';
import { ledgerAmounts, reservations } from '../db/schema';
import type { Currency } from './credit';

/** A reservation kept across requests until it is settled, refunded or expired. */
export interface StoredReservation {
  requestId: string;
  accountId: string;
  apiKeyId: string | null;
  modelId: string | null;
  currency: Currency;
  amount: number;
  counter: string;
  expiresAt: number;
}

/** Records a reservation that outlives its request (before the caller is told it is held). */
export async function saveReservation(db: Database, r: StoredReservation): Promise<void> {
  await db
    .insert(reservations)
    .values({ ...r, amountMicros: r.amount, expiresAt: new Date(r.expiresAt) })
    .onConflictDoNothing();
}

const toStored = (row: typeof reservations.$inferSelect): StoredReservation => ({
  requestId: row.requestId,
  accountId: row.accountId,
  apiKeyId: row.apiKeyId,
  modelId: row.modelId,
  currency: row.currency,
  amount: row.amountMicros,
  counter: row.counter,
  expiresAt: row.expiresAt.getTime(),
});

/** The reservation of a request id, or null when it was settled, refunded or never kept. */
export async function findReservation(db: Database, requestId: string): Promise<StoredReservation | null> {
  const [row] = await db.select().from(reservations).where(eq(reservations.requestId, requestId));
  return row ? toStored(row) : null;
}

/** Forgets a reservation once its settlement or refund is applied. */
export async function deleteReservation(db: Database, requestId: string): Promise<void> {
  await db.delete(reservations).where(eq(reservations.requestId, requestId));
}

/** Every kept reservation (restored at start; there are few: one per queued job). */
export async function listReservations(db: Database): Promise<StoredReservation[]> {
  return (await db.select().from(reservations)).map(toStored);
}

/** The reservations whose time ran out by `now`. */
export async function expiredReservations(db: Database, now: number): Promise<StoredReservation[]> {
  return (
    await db
      .select()
      .from(reservations)
      .where(lte(reservations.expiresAt, new Date(now)))
  ).map(toStored);
}

/** Whether the ledger already holds a charge of this request (its settlement was written before a crash). */
export async function ledgerHas(db: Database, requestId: string): Promise<boolean> {
  const [row] = await db.select({ id: ledgerAmounts.id }).from(ledgerAmounts).where(eq(ledgerAmounts.requestId, requestId)).limit(1);
  return row !== undefined;
}
