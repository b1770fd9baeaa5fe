import type { AdmitResult, RateCount, TokenCorrection } from '../limits/store';
import type { Currency } from './credit';
import type { LedgerCharge } from './ledger-row';

/** One currency the reservation may be paid in, with the key limit that applies to it. */
export interface HoldCandidate {
  currency: Currency;
  /** Maximum cost in this currency's micro-units. */
  amount: number;
  /** Free balance the hold must leave behind (micro-units), 0 by default: a margin is held only where the balance is ample. */
  floor?: number;
  /** The key's spend counter for this currency class in the current window, or '' when unlimited. */
  counter: string;
  /** The key's limit for that class (micro-units); ignored when `counter` is ''. */
  limit: number;
}

/**
 * A reservation request: candidates in payment order; the first that fits is held. With
 * `rate`, the request's rate-limit count is taken in the same atomic step, first: a rate
 * refusal takes no hold.
 */
export interface ReserveInput {
  accountId: string;
  requestId: string;
  candidates: HoldCandidate[];
  /** Currencies whose balance (before the request) the answer reports, for headers and 402 bodies. */
  report: Currency[];
  now: number;
  expiresAt: number;
  /** Time to live of a counter created by this call (ms), 0 for none. */
  counterTtlMs: number;
  /** The rate-limit count of the request, or none. */
  rate?: RateCount | null;
}

/**
 * Outcome of a reservation. `missing` means a mirror or counter must be initialised first.
 * With a rate part, `rate` is its outcome: `rated` when the rate limit refused (no hold was
 * taken); otherwise the request was counted, and its tokens kept with `held` or `missing`
 * (already given back with `insufficient` or `limit`; the counts in `rate` include them, as
 * the headers show them).
 */
export type ReserveResult = (
  | { status: 'held'; index: number; balances: number[] }
  | { status: 'missing' }
  | { status: 'insufficient'; balances: number[] }
  /** The candidate at `index` had the balance but its key limit refused. */
  | { status: 'limit'; index: number; balances: number[] }
  | { status: 'rated' }
) & { rate?: AdmitResult };

/** A settlement: the actual charge in the held currency and its ledger row. */
export interface SettleInput {
  accountId: string;
  requestId: string;
  currency: Currency;
  amount: number;
  /** The key's counter of the window current at settlement, or '' when the key has no limit. */
  counter: string;
  counterTtlMs: number;
  charge: LedgerCharge;
  settledTtlMs: number;
  /** The rate limiter's token correction, applied with the settlement (once), or none. */
  tokens?: TokenCorrection | null;
  /**
   * The request id is this call's alone and its ticket settles once (not a kept reservation
   * another instance may also settle or refund): the store may answer from the known charge
   * at once and apply it later, in a batch (the hold covers the call until then).
   */
  deferrable?: boolean;
}

/** What a settlement or release charged: the first call's result, whichever call asks. */
export interface Charged {
  currency: Currency;
  amount: number;
}

/** A batch of queued settlements; `ack` removes it from the outbox after the database commit. */
export interface LedgerBatch {
  charges: LedgerCharge[];
  /**
   * Holds settlements read back from a journal: the process that journaled them may have
   * committed them before it stopped, possibly as the per-line rows of an older version.
   */
  replayed?: boolean;
  ack(): Promise<void>;
  /** Gives the batch back without removing it (the write failed). */
  abandon(): Promise<void>;
}

/**
 * The billing store port: live balance mirrors, reservations, key spend counters and the
 * ledger queue, each operation atomic (memory: single-threaded JS; Redis: one Lua script).
 */
export interface BillingStore {
  readonly backend: 'memory' | 'redis';
  /** A value when the reservation was made at once (the memory store with an in-process limiter). */
  reserve(input: ReserveInput): ReserveResult | Promise<ReserveResult>;
  /** Charges once per request id: drops the hold, deducts, counts, queues the ledger row. */
  /** A value when done at once (the memory store). */
  settle(input: SettleInput): Charged | Promise<Charged>;
  /** Whether a live hold of this request exists (a kept reservation survived a restart). */
  hasHold(accountId: string, requestId: string): Promise<boolean>;
  /** Drops the hold and charges nothing, applying `tokens` (the reserved tokens given back); after a settlement it returns that settlement. */
  release(accountId: string, requestId: string, settledTtlMs: number, tokens?: TokenCorrection | null): Promise<Charged | null>;
  /** Sets balance mirrors that are absent (first use), from the database values. */
  initBalances(accountId: string, values: Partial<Record<Currency, number>>): Promise<void>;
  /** Sets a key counter if absent. */
  initCounter(counter: string, spent: number, ttlMs: number): Promise<void>;
  /** Adds to a balance mirror only if it exists; idempotent by `requestId`. Returns whether it added. */
  addIfMirrored(accountId: string, currency: Currency, amount: number, requestId: string): Promise<boolean>;
  /** Undoes `addIfMirrored` (the credit's transaction failed after it). */
  undoAdd(accountId: string, currency: Currency, amount: number, requestId: string): Promise<void>;
  /** Mirror values, null for currencies not mirrored yet. */
  balances(accountId: string, currencies: readonly Currency[]): Promise<(number | null)[]>;
  /** Live holds of the account (requests in flight, kept reservations). */
  liveHolds(accountId: string): Promise<number>;
  /** Charges of the account settled on any instance sharing this store and not yet in the database. */
  unwritten(accountId: string): Promise<number>;
  /**
   * After a start on a journal: queues the settlements the previous process had charged in
   * the shared store but not journaled (a crash between the two), so the ledger matches the
   * live balance again. Returns how many; absent where a crash loses the live state with it (memory).
   */
  recoverUnjournaled?(): Promise<number>;
  /** Clears the unwritten marks of charges now in the database (or moved to the dead letters). */
  written(charges: readonly LedgerCharge[]): Promise<void>;
  /**
   * Drops what the store keeps for an account: its mirrors and holds, the key counters named
   * (in `counterName` form) and the credit markers of these credit request ids. For a deleted
   * scratch account; other leftovers (settled ids) expire on their own.
   */
  forget(accountId: string, extra: { counters: string[]; credits: string[] }): Promise<void>;
  /** Takes up to `max` queued settlements (one charge per request), or null when another writer holds the queue or it is empty. */
  takeBatch(max: number): Promise<LedgerBatch | null>;
  /** Settlements not yet in the database (this instance's outbox). */
  queued(): Promise<number>;
  /** Stops background work (replays, sweeps) and closes the journal; after the writer's last flush. */
  close?(): void;
}
