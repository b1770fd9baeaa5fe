import type { LimitPeriod } from '../auth/api-keys';
import type { Database } from '../db/database';
import type { RateLimitAdmission } from '../limits/types';
import type { Logger } from '../log';
import type { ModelEntry } from '../models/catalog';
import type { Currency } from './credit';
import type { ChargeLine, LedgerCharge } from './ledger-row';
import type { MeteredUsage, MeterTicket, SettledCost } from './meter';
import { counterName, keyWindow } from './mirror-init';
import { spendClass } from './spend-class';
import { costLines, inCurrency, pricingOf } from './pricing';
import { deleteReservation } from './reservations';
import type { BillingStore, Charged, HoldCandidate } from './store';

/** What a ticket needs of the meter. */
export interface TicketDeps {
  store: BillingStore;
  db: Database;
  log: Logger;
  now: () => number;
  settledTtlMs: number;
}

/** One held reservation, ready to be settled or released. */
export interface HeldReservation {
  accountId: string;
  apiKeyId: string | null;
  /** The key's limit period, to count a settlement in the window current then; null with no key limit (or a restored hold). */
  keyPeriod: LimitPeriod | null;
  /** Null for a call priced without a catalog model (only its line items cost). */
  model: ModelEntry | null;
  held: HoldCandidate;
  admission: RateLimitAdmission;
  shown: Pick<MeterTicket, 'headers' | 'balances'>;
  requestId: string;
  /** Kept in the reservations table (it outlives its request): forgotten once settled or released. */
  durable: boolean;
}

const FREE: SettledCost = Object.freeze({ usdMicros: 0, diemMicros: 0 });
const toCost = (currency: Currency, amount: number): SettledCost =>
  currency === 'DIEM' ? { usdMicros: 0, diemMicros: amount } : { usdMicros: amount, diemMicros: 0 };
const costOf = (charged: Charged): SettledCost => toCost(charged.currency, charged.amount);

/**
 * Trims the lines' charges, last line first, so that they sum to at most `cap`: a request is
 * never charged more than it reserved, so no request field (a prompt the estimate missed, an
 * upstream past its limit) can take a balance below zero. Returns the micro-units trimmed.
 */
function capLines(lines: ChargeLine[], charged: number, cap: number): number {
  let excess = charged - cap;
  const trimmed = Math.max(0, excess);
  for (let i = lines.length - 1; i >= 0 && excess > 0; i--) {
    const line = lines[i]!;
    const cut = Math.min(-line.amount, excess);
    line.amount += cut;
    excess -= cut;
  }
  return trimmed;
}

/** The ledger row of a settlement in the held currency, what it charges (the lines' sum, positive) and what the cap trimmed. */
function settlementCharge(r: HeldReservation, usage: MeteredUsage, at: number): { charge: LedgerCharge; charged: number; trimmed: number } {
  // A call that fell back to another model is priced and recorded as the model that answered.
  const model = usage.model ?? r.model;
  const p = pricingOf(model);
  const lines: ChargeLine[] = [];
  let charged = 0;
  for (const line of costLines(model, p, usage)) {
    const micros = inCurrency(p, r.held.currency, line.usdMicros);
    charged += micros;
    lines.push({ sku: line.sku, units: line.units, pricePerUnitUsd: line.pricePerUnitUsd, amount: -micros });
  }
  const trimmed = capLines(lines, charged, r.held.amount);
  charged -= trimmed;
  const charge: LedgerCharge = {
    accountId: r.accountId,
    apiKeyId: r.apiKeyId,
    requestId: r.requestId,
    currency: r.held.currency,
    modelId: model?.id ?? null,
    lines,
    amount: -charged,
    promptTokens: usage.promptTokens,
    completionTokens: usage.completionTokens,
    executionMs: usage.executionMs,
    at,
  };
  if (usage.notes) charge.notes = usage.notes;
  return { charge, charged, trimmed };
}

/** The key counter a settlement at `at` counts in: the window current then (a request that straddles a rollover counts in the new one, like its ledger entry). */
function settlementCounter(r: HeldReservation, at: number): { counter: string; ttlMs: number } {
  const cls = spendClass(r.held.currency);
  if (!r.held.counter || !cls) return { counter: '', ttlMs: 0 };
  if (!r.keyPeriod || !r.apiKeyId) return { counter: r.held.counter, ttlMs: 0 };
  const window = keyWindow(r.keyPeriod, at);
  return { counter: counterName(r.accountId, r.apiKeyId, r.keyPeriod, window.start, cls), ttlMs: window.ttlMs };
}

/**
 * A ticket over a held reservation: exactly one of settle or release takes effect, and
 * repeated calls return the first outcome. A durable reservation's row is forgotten after
 * the store has applied the outcome (a crash in between is caught at restart by the ledger check).
 * A class, not closures: one object per request.
 */
class Ticket implements MeterTicket {
  readonly headers: MeterTicket['headers'];
  readonly balances: MeterTicket['balances'];
  private outcome: Promise<SettledCost> | null = null;

  constructor(
    private readonly deps: TicketDeps,
    private readonly r: HeldReservation,
  ) {
    this.headers = r.shown.headers;
    this.balances = r.shown.balances;
  }

  settle(usage: MeteredUsage): Promise<SettledCost> {
    this.outcome ??= this.charge(usage);
    return this.outcome;
  }

  async release(): Promise<void> {
    this.outcome ??= this.giveBack();
    await this.outcome;
  }

  // Not async: a settlement that keeps no reservation row is the store's promise and one `then`.
  private charge(usage: MeteredUsage): Promise<SettledCost> {
    const { deps, r } = this;
    const at = deps.now();
    const { charge, charged: amount, trimmed } = settlementCharge(r, usage, at);
    if (trimmed > 0)
      deps.log.warn('charge capped at its reservation', {
        requestId: r.requestId,
        currency: r.held.currency,
        reserved: r.held.amount,
        trimmed,
      });
    const { counter, ttlMs } = settlementCounter(r, at);
    // The rate limiter's token correction goes with the settlement: one script on Redis.
    const settled = deps.store.settle({
      accountId: r.accountId,
      requestId: r.requestId,
      currency: r.held.currency,
      amount,
      counter,
      counterTtlMs: ttlMs,
      charge,
      settledTtlMs: deps.settledTtlMs,
      tokens: r.admission.tokenCorrection(usage.limitTokens ?? usage.promptTokens + usage.completionTokens),
      deferrable: !r.durable,
    });
    if (r.durable) return this.forgotten(settled);
    return settled instanceof Promise ? settled.then(costOf) : Promise.resolve(costOf(settled));
  }

  /** A durable reservation's outcome once its row is deleted. */
  private async forgotten(outcome: Charged | null | Promise<Charged | null>): Promise<SettledCost> {
    const charged = await outcome;
    await deleteReservation(this.deps.db, this.r.requestId);
    return charged ? costOf(charged) : FREE;
  }

  private async giveBack(): Promise<SettledCost> {
    const { deps, r } = this;
    const charged = await deps.store.release(r.accountId, r.requestId, deps.settledTtlMs, r.admission.tokenCorrection(0));
    if (r.durable) await deleteReservation(deps.db, r.requestId);
    return charged ? toCost(charged.currency, charged.amount) : FREE;
  }
}

/** The ticket of a held reservation. */
export function createTicket(deps: TicketDeps, r: HeldReservation): MeterTicket {
  return new Ticket(deps, r);
}
