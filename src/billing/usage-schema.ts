import { t, type Static } from 'elysia';

const TokenCount = (description: string) => t.Union([t.Integer({ minimum: 0 }), t.Null()], { description });

/** Usage entry inference details (spec 2.4); token counts are null except on text-model lines. */
const InferenceDetails = t.Object({
  requestId: t.String({ description: 'Request id (CF-RAY) of the inference' }),
  inferenceExecutionTime: t.Integer({ minimum: 0, description: 'Inference execution time, milliseconds' }),
  promptTokens: TokenCount('Tokens in the prompt; null except for text-model usage'),
  completionTokens: TokenCount('Tokens in the completion; null except for text-model usage'),
});

/**
 * One billing usage entry (spec 2.4; the spec's `unit`, not the swagger's `units`).
 * `amount` is what the line charged, positive; a refund line is negative.
 */
export const UsageEntry = t.Object({
  timestamp: t.String({ format: 'date-time', description: 'When the entry was created' }),
  sku: t.String({ description: 'Product of the entry, e.g. `<model>-llm-output-mtoken`' }),
  pricePerUnitUsd: t.Number({ description: 'Price per unit in USD' }),
  unit: t.Number({ description: 'Units consumed (tokens are counted in millions)' }),
  amount: t.Number({ description: 'Total charged, in `currency`; negative for a refund' }),
  currency: t.String({ description: 'USD, VCU, DIEM or BUNDLED_CREDITS (USDC for wallet accounts)' }),
  notes: t.String({ description: 'Notes about the entry; "API Inference" on inference lines without other notes' }),
  inferenceDetails: t.Union([InferenceDetails, t.Null()]),
});

/** A usage entry as served. */
export type UsageEntry = Static<typeof UsageEntry>;

/**
 * An entry of GET /billing/usage: the usage entry with three fields svc adds (the reference
 * leaves that list's entries open; usage-history's are closed, so it serves UsageEntry).
 */
export const UsageLedgerEntry = t.Composite([
  UsageEntry,
  t.Object({
    requestId: t.String({
      description: 'svc: the request the line belongs to; the lines of one request (a chat bills several SKUs) share it',
    }),
    apiKeyId: t.Union([t.String(), t.Null()], { description: 'svc: the API key the request was made with; null for a wallet or a credit' }),
    modelId: t.Union([t.String(), t.Null()], { description: 'svc: the catalog model of the request; null for calls priced without one' }),
  }),
]);

/** A GET /billing/usage entry as served. */
export type UsageLedgerEntry = Static<typeof UsageLedgerEntry>;

/** Currencies the usage filter of GET /billing/usage accepts. */
export const UsageCurrency = t.Union([t.Literal('USD'), t.Literal('VCU'), t.Literal('DIEM'), t.Literal('BUNDLED_CREDITS')], {
  description: 'Only entries in this currency',
});

/** Currencies the usage-history filter accepts (no VCU). */
export const HistoryCurrency = t.Union([t.Literal('USD'), t.Literal('DIEM'), t.Literal('BUNDLED_CREDITS')], {
  description: 'Only entries in this currency',
});
