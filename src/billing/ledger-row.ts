import type { ChargeLine } from '../db/schema';
import type { Currency } from './credit';

export type { ChargeLine };

/**
 * One settlement as queued for the ledger writer and written as one `ledger_charges` row:
 * its line items (spec 2.4's per-SKU entries) in `lines`. Plain JSON, so the journal can
 * carry it. Amounts are signed micro-units (charges < 0); `amount` is the lines' sum.
 */
export interface LedgerCharge {
  accountId: string;
  apiKeyId: string | null;
  requestId: string;
  currency: Currency;
  /** Null for a call priced without a catalog model. */
  modelId: string | null;
  lines: ChargeLine[];
  amount: number;
  promptTokens: number;
  completionTokens: number;
  executionMs: number;
  /** The plugins' notes on the request (`guardrails: pii=redact`); absent when none (and in older journals). */
  notes?: string;
  /** Settlement time, epoch ms (the entry's timestamp, so key windows match the counters). */
  at: number;
}

/** A settlement as journals written before ledger_charges hold it: one object per line item, with the request's fields repeated. */
interface JournaledLine extends Omit<LedgerCharge, 'lines' | 'amount'>, ChargeLine {}

/** The charge of a journaled settlement, in either format (an upgrade may find an older journal). */
export function chargeOfJournal(value: LedgerCharge | JournaledLine[]): LedgerCharge | null {
  if (!Array.isArray(value)) return value;
  const first = value[0];
  if (!first) return null;
  const lines = value.map(({ sku, units, pricePerUnitUsd, amount }) => ({ sku, units, pricePerUnitUsd, amount }));
  return { ...first, lines, amount: lines.reduce((sum, l) => sum + l.amount, 0) };
}
