import type { Currency } from './credit';

/**
 * One ledger line item of a settlement (spec 2.4), as queued for the ledger writer:
 * plain JSON so the Redis queue can carry it. `amount` is signed micro-units (charges < 0).
 */
export interface LedgerRow {
  accountId: string;
  apiKeyId: string | null;
  requestId: string;
  currency: Currency;
  sku: string;
  /** Null for a call priced without a catalog model. */
  modelId: string | null;
  /** Exact decimal string. */
  units: string;
  /** Exact decimal string, USD per unit. */
  pricePerUnitUsd: string;
  amount: number;
  notes: string | null;
  promptTokens: number;
  completionTokens: number;
  executionMs: number;
  /** Settlement time, epoch ms (the entry's timestamp, so key windows match the counters). */
  at: number;
}
