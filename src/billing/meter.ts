import type { RequestContext } from '../http/request-context';
import type { ModelEntry } from '../models/catalog';

/** An extra line item added by a plugin (web search, scraping, x-search). */
export interface ExtraCharge {
  sku: string;
  units: number;
  /** Price of one unit in micro-USD. */
  unitPriceMicros: number;
}

/** What a request actually consumed, reported when it ends. */
export interface MeteredUsage {
  promptTokens: number;
  completionTokens: number;
  cachedPromptTokens?: number;
  extras?: ExtraCharge[];
  executionMs: number;
}

/** The cost that was charged, for the response's `cost` block. */
export interface SettledCost {
  usdMicros: number;
  diemMicros: number;
}

/** What a request may consume at most, declared before the upstream call. */
export interface MeterOpenInput {
  ctx: RequestContext;
  model: ModelEntry;
  estimatedPromptTokens: number;
  maxCompletionTokens: number;
  extras?: ExtraCharge[];
}

/** An open reservation; exactly one of settle/release takes effect, repeated calls are no-ops. */
export interface MeterTicket {
  /** Balance before the request, for x-svc-balance-* headers (decimal strings). */
  readonly balanceHeaders: Record<string, string>;
  /** Charges what was produced and releases the rest. Idempotent by request id. */
  settle(usage: MeteredUsage): Promise<SettledCost>;
  /** Releases the reservation without charging (the upstream failed). */
  release(): Promise<void>;
}

/**
 * Metering: reserve before the provider, settle after. `open` throws ServiceError 402
 * (balance or key limit) or 429 (token rate limit) before any upstream call.
 */
export interface UsageMeter {
  open(input: MeterOpenInput): Promise<MeterTicket>;
}

/** A meter that charges nothing; used until billing is configured and in unit tests. */
export const freeMeter: UsageMeter = {
  async open() {
    return {
      balanceHeaders: {},
      async settle() {
        return { usdMicros: 0, diemMicros: 0 };
      },
      async release() {},
    };
  },
};
