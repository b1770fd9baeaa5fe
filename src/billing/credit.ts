import { sql } from 'drizzle-orm';
import type { Database } from '../db/database';
import { balances, ledgerEntries } from '../db/schema';
import { accountLock } from './account-lock';

/** Currencies an account can hold. */
export type Currency = 'USD' | 'DIEM' | 'VCU' | 'BUNDLED_CREDITS' | 'USDC';

/**
 * Credits an account: the ledger entry and the balance change commit together, and the
 * entry is unique by `requestId`, so a retried credit is applied once. Returns false when
 * this request id was already credited. `onApplied` runs inside the transaction, under the
 * account lock (the meter adds the credit to its live balance there).
 */
/** A credit to an account (operator top-up, bootstrap credit, x402 payment). */
export interface CreditInput {
  accountId: string;
  currency: Currency;
  /** Positive micro-units. */
  amountMicros: number;
  /** Idempotency key: a second credit with the same id is not applied. */
  requestId: string;
  sku?: string;
  notes?: string;
  kind?: 'CREDIT' | 'TOP_UP' | 'REFUND';
  /** Runs in the credit's own database transaction when it is applied (an x402 payment row). */
  alsoInTransaction?: (tx: Database) => Promise<void>;
}

export async function creditAccount(db: Database, input: CreditInput, onApplied?: () => Promise<void>): Promise<boolean> {
  if (!Number.isSafeInteger(input.amountMicros) || input.amountMicros <= 0)
    throw new Error('credit amount must be a positive integer of micro-units');
  return db.transaction(async (tx) => {
    await tx.execute(accountLock(input.accountId));
    const inserted = await tx
      .insert(ledgerEntries)
      .values({
        accountId: input.accountId,
        requestId: input.requestId,
        kind: input.kind ?? 'CREDIT',
        currency: input.currency,
        sku: input.sku ?? 'credit',
        units: '1',
        pricePerUnitUsd: '0',
        amountMicros: input.amountMicros,
        notes: input.notes ?? null,
      })
      .onConflictDoNothing()
      .returning({ id: ledgerEntries.id });
    if (inserted.length === 0) return false;
    await tx
      .insert(balances)
      .values({ accountId: input.accountId, currency: input.currency, amountMicros: input.amountMicros })
      .onConflictDoUpdate({
        target: [balances.accountId, balances.currency],
        set: { amountMicros: sql`${balances.amountMicros} + ${input.amountMicros}`, updatedAt: sql`now()` },
      });
    await input.alsoInTransaction?.(tx as unknown as Database);
    await onApplied?.();
    return true;
  });
}
