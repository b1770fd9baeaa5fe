import type { RequestContext } from '../http/request-context';
import type { ModelEntry } from '../models/catalog';
import type { RouteLimit } from '../limits/types';
import type { CreditInput, Currency } from './credit';

export type { CreditInput } from './credit';

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
  /** Prompt tokens read from the provider's prompt cache (part of promptTokens), priced at `cacheInput`. */
  cachedPromptTokens?: number;
  /** Prompt tokens written to the provider's prompt cache (part of promptTokens), priced at `cacheWrite`. */
  cacheWritePromptTokens?: number;
  /** The model that answered when it is not the one the call was opened for (a fallback): priced and recorded as it. */
  model?: ModelEntry;
  extras?: ExtraCharge[];
  /** Bill the extras alone, no token rows (a plugin answered instead of the model: its own SKUs). */
  extrasOnly?: boolean;
  /** Tokens the rate limits count when not the ones billed (a cache hit: the original answer's); default prompt + completion. */
  limitTokens?: number;
  executionMs: number;
  /** Notes for the ledger row (the plugins' `ctx.notes`, joined); absent when none. */
  notes?: string;
}

/** The cost that was charged, for the response's `cost` block. */
export interface SettledCost {
  usdMicros: number;
  diemMicros: number;
}

/** What a request may consume at most, declared before the upstream call. */
export interface MeterOpenInput {
  ctx: RequestContext;
  /** The catalog model, or null for a call priced by its line items alone (RPC credits, augment calls). */
  model: ModelEntry | null;
  /** Without a model: the endpoint whose account-wide rate limit admits the call (e.g. `/crypto/rpc/{network}`). */
  endpoint?: string;
  /** Without a model: the route's own account-wide limit, instead of `rateLimits.apiRpm`. */
  routeLimit?: RouteLimit;
  /**
   * Keep the reservation past this request until this time (epoch ms): a charge that settles
   * later (a queued job). It is stored, restored after a restart, and refunded when it expires.
   */
  holdUntil?: number;
  /** Reserve at this model's prices instead of `model`'s (the dearest of a call's fallback candidates); limits stay `model`'s. */
  priceAs?: ModelEntry;
  estimatedPromptTokens: number;
  maxCompletionTokens: number;
  /**
   * Prompt tokens held beyond the estimate while the balance keeps MARGIN_FLOOR_USD_MICROS free
   * after them (an upstream tokenizer that counts more than svc's is then charged in full);
   * never needed to admit, so a balance funded for N such requests admits N.
   */
  marginPromptTokens?: number;
  extras?: ExtraCharge[];
}

/** An open reservation; exactly one of settle/release takes effect, repeated calls are no-ops. */
export interface MeterTicket {
  /**
   * Headers the response must carry: x-svc-balance-* (balance before the request),
   * x-ratelimit-* (limit state), X-Balance-Remaining for wallets. Set before the first byte.
   */
  readonly headers: Record<string, string>;
  /** The balances before the request in micro-units, as numbers (`usdc` for wallets), which the headers show. */
  readonly balances: { usd: number; diem: number; usdc?: number };
  /** Charges what was produced and releases the rest. Idempotent by request id. */
  settle(usage: MeteredUsage): Promise<SettledCost>;
  /** Releases the reservation without charging (the upstream failed). */
  release(): Promise<void>;
}

/**
 * Metering: reserve before the provider, settle after. `open` enforces the per-model rate
 * limits (requests and tokens per minute), the balance and the key's consumption limit,
 * and throws ServiceError 402 or 429 before any upstream call. It also owns the live
 * balances, since charges reach the database in batches.
 */
export interface UsageMeter {
  /**
   * The ticket of an admitted reservation: at once when nothing had to wait (limits cached,
   * mirrors ready, an in-memory store), else a promise. A refusal is always a rejected promise.
   */
  open(input: MeterOpenInput): MeterTicket | Promise<MeterTicket>;
  /** Live balances of an account in micro-units (charges not yet written already deducted). */
  balances(accountId: string): Promise<Partial<Record<Currency, number>>>;
  /** Credits an account: ledger entry and balance in one transaction, idempotent by requestId; false when already applied. */
  credit(input: CreditInput): Promise<boolean>;
  /** The ticket of a reservation kept with `holdUntil`, to settle or refund it later; null when settled, refunded or expired. */
  resume(requestId: string): Promise<MeterTicket | null>;
  /** Restores kept reservations after a start (holds back in the KV), refunds expired ones. */
  recover(): Promise<{ restored: number; expired: number }>;
  /** Refunds kept reservations whose time ran out (also done every minute); returns how many. */
  expireReservations(): Promise<number>;
  /** Requests of the account holding balance now (in flight, or kept for a queued job). */
  liveHolds(accountId: string): Promise<number>;
  /** Charges of the account settled on any instance and not yet written to the database. */
  unwrittenCharges(accountId: string): Promise<number>;
  /** Why this instance's ledger writer cannot write (readiness, metrics), or null while it can. */
  ledgerProblem(): string | null;
  /** Forgets a deleted scratch account's live state: mirrors, holds, the named key counters and credit markers. */
  forget(accountId: string, extra: { counters: string[]; credits: string[] }): Promise<void>;
  /** Writes pending ledger entries now (tests, shutdown). */
  flush(): Promise<void>;
  close(): Promise<void>;
}

/** A meter that charges nothing and holds no balances; for unit tests of other stages. */
export const freeMeter: UsageMeter = {
  async open() {
    return {
      headers: {},
      balances: { usd: 0, diem: 0 },
      async settle() {
        return { usdMicros: 0, diemMicros: 0 };
      },
      async release() {},
    };
  },
  async balances() {
    return {};
  },
  async resume() {
    return null;
  },
  async recover() {
    return { restored: 0, expired: 0 };
  },
  async expireReservations() {
    return 0;
  },
  async credit() {
    throw new Error('freeMeter holds no balances');
  },
  async liveHolds() {
    return 0;
  },
  async unwrittenCharges() {
    return 0;
  },
  ledgerProblem: () => null,
  async forget() {},
  async flush() {},
  async close() {},
};
