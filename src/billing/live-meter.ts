import type { ApiKeyRecord } from '../auth/api-keys';
import type { Config } from '../config';
import type { Database } from '../db/database';
import { unauthorized, type ServiceError } from '../http/errors';
import type { Caller } from '../http/request-context';
import type { KeyValueStore } from '../kv/store';
import { headersOnly, type LimitPlan, type RateLimitAdmission, type RateLimiter } from '../limits/types';
import type { Logger } from '../log';
import type { ModelCatalog } from '../models/catalog';
import { parseBillingConfig, type BillingConfig } from './config';
import { creditAccount, type Currency } from './credit';
import { startLedgerWriter } from './ledger-writer';
import type { MeterOpenInput, MeterTicket, UsageMeter } from './meter';
import { counterName, CURRENCIES, initBalanceMirror, initKeyCounters, keyWindow } from './mirror-init';
import { spendClass } from './spend-class';
import { createReservationKeeper } from './reservation-keeper';
import { formatMicros } from './money';
import { insufficientBalance, keyLimitExceeded, walletPaymentRequired } from './payment-required';
import { openBillingStore } from './open-store';
import { inCurrency, MARGIN_FLOOR_USD_MICROS, openedReservationMicros, pricingOf, type ModelPricing } from './pricing';
import { saveReservation } from './reservations';
import type { BillingStore, HoldCandidate, ReserveInput, ReserveResult } from './store';
import { createTicket, type TicketDeps } from './ticket';

/** What the meter needs: the database for initialisation and the ledger, the KV for live state. */
export interface UsageMeterDeps {
  db: Database;
  kv: KeyValueStore;
  limits: RateLimiter;
  now: () => number;
  log: Logger;
  config: Pick<Config, 'billing' | 'basePath'> & Partial<Pick<Config, 'wallets' | 'publicUrl' | 'port'>>;
  /** The catalog, to price a restored reservation's model; without it, restored tickets price only line items. */
  models?: Pick<ModelCatalog, 'get'>;
}

const KEY_REPORT: Currency[] = ['USD', 'DIEM'];
const WALLET_REPORT: Currency[] = ['USD', 'DIEM', 'USDC'];
/** The admission of a call no rate limit counts. */
const NOTHING_COUNTED = headersOnly({});

const hasLimit = (k: ApiKeyRecord) => k.limits.usd !== null || k.limits.diem !== null || k.limits.vcu !== null;

/** A reservation being opened: what `open` knows before the store answers. */
interface Opening {
  input: MeterOpenInput;
  caller: Caller;
  key: ApiKeyRecord | null;
  window: { start: number; ttlMs: number } | null;
  plan: LimitPlan | null;
  reserve: ReserveInput;
}

/**
 * The usage meter over the billing store: reservations and key limits checked atomically
 * in the KV (no database write per request), settlements queued for the batched ledger
 * writer. The database is read only to initialise an account's mirror or a key's window.
 */
export function createUsageMeter(deps: UsageMeterDeps): UsageMeter & { readonly store: BillingStore; readonly billing: BillingConfig } {
  const cfg = parseBillingConfig(deps.config);
  const store = openBillingStore({ ...deps, limits: deps.limits.store }, cfg);
  const writer = startLedgerWriter({
    db: deps.db,
    store,
    log: deps.log,
    intervalMs: cfg.flushIntervalMs,
    batchSize: cfg.flushBatchSize,
    sliceMs: cfg.flushSliceMs,
  });
  const mirrored = new Set<string>();
  const counted = new Set<string>();
  const pending = new Map<string, Promise<void>>();
  const ticketDeps: TicketDeps = { store, db: deps.db, log: deps.log, now: deps.now, settledTtlMs: cfg.settledTtlMs };

  /** Runs `init` once at a time per name (concurrent first requests share one database read). */
  function once(name: string, done: Set<string>, force: boolean, init: () => Promise<void>): Promise<void> | undefined {
    if (!force && done.has(name)) return undefined;
    let p = pending.get(name);
    if (!p) {
      p = init().then(
        () => void (done.size > 200_000 && done.clear(), done.add(name), pending.delete(name)),
        (error) => (pending.delete(name), Promise.reject(error)),
      );
      pending.set(name, p);
    }
    return p;
  }

  /** Initialises the account's mirror and the key's counters where needed; undefined when both are ready (the common case, no await). */
  function ensure(
    caller: Caller,
    key: ApiKeyRecord | null,
    window: { start: number; ttlMs: number } | null,
    force: boolean,
  ): Promise<void> | undefined {
    const { accountId } = caller;
    const name = key && window ? counterName(accountId, key.id, key.limitPeriod, window.start, 'usd') : null;
    if (!force && mirrored.has(accountId) && (name === null || counted.has(name))) return undefined;
    return initialise(accountId, key, window, name, force);
  }

  // Apart from `ensure`: its closures would give every call a scope, the common case included.
  function initialise(
    accountId: string,
    key: ApiKeyRecord | null,
    window: { start: number; ttlMs: number } | null,
    name: string | null,
    force: boolean,
  ): Promise<void> | undefined {
    const account = once(accountId, mirrored, force, () => initBalanceMirror(deps.db, store, accountId));
    const counters = () =>
      key && window && name
        ? once(name, counted, force, () => initKeyCounters(deps.db, store, { accountId, keyId: key.id, period: key.limitPeriod }, window))
        : undefined;
    if (!account) return counters();
    return account.then(counters);
  }

  /** The 402 of a reservation that took no hold: a key limit, or the balance (a wallet's names what to pay). */
  function refusal(caller: Caller, result: ReserveResult, candidates: HoldCandidate[]): ServiceError {
    if (result.status === 'limit') return keyLimitExceeded(spendClass(candidates[result.index]!.currency) ?? 'usd');
    if (caller.via !== 'wallet') return insufficientBalance();
    // What the request needs: the hold without a margin.
    const usdc = candidates.find((c) => c.currency === 'USDC' && !c.floor) ?? candidates[0]!;
    return walletPaymentRequired({
      balanceMicros: (result.status === 'insufficient' ? result.balances[2] : 0) ?? 0,
      neededMicros: usdc.amount,
      minimumTopUpUsd: cfg.minimumTopUpUsd,
      basePath: deps.config.basePath,
      config: deps.config,
      nowMs: deps.now(),
    });
  }

  /** The holds a request may take, in payment order, each with its key-limit counter. */
  function holdCandidates(
    caller: Caller,
    key: ApiKeyRecord | null,
    window: { start: number } | null,
    p: ModelPricing,
    maxUsd: number,
    withMarginUsd: number,
  ): HoldCandidate[] {
    const candidates: HoldCandidate[] = [];
    for (const currency of caller.via === 'wallet' ? cfg.paymentOrder.wallet : cfg.paymentOrder.apiKey) {
      const cls = spendClass(currency);
      const limit = key && window && cls ? key.limits[cls] : null;
      const counter =
        limit === null || !key || !window || !cls ? '' : counterName(caller.accountId, key.id, key.limitPeriod, window.start, cls);
      // The hold with the margin first, where it leaves the floor free; else the estimate alone,
      // so the margin never refuses a request the balance covers (nor holds what later ones need).
      if (withMarginUsd > maxUsd)
        candidates.push({
          currency,
          amount: inCurrency(p, currency, withMarginUsd),
          floor: inCurrency(p, currency, MARGIN_FLOOR_USD_MICROS),
          counter,
          limit: limit ?? 0,
        });
      candidates.push({ currency, amount: inCurrency(p, currency, maxUsd), counter, limit: limit ?? 0 });
    }
    return candidates;
  }

  /**
   * Admits the request (rate limits) and reserves its maximum cost in one atomic step of the
   * billing store: one script, so one Redis round trip before the first byte (at low
   * concurrency every round trip costs the process a sleep and a wake-up, which was most of
   * a request's CPU). A rate-limit refusal wins (429) and takes no hold; a balance refusal
   * counts the request but gives back the tokens the limiter reserved.
   *
   * Not async: when the limits are cached, the mirrors ready and the store in memory, the
   * ticket is returned at once (an async function here cost its generator, promise and scopes
   * on every request); any step that is a promise goes on in `openLater`. A refusal is a
   * rejected promise either way.
   */
  function open(input: MeterOpenInput): MeterTicket | Promise<MeterTicket> {
    try {
      const caller = input.ctx.caller;
      if (!caller) throw unauthorized();
      const { model } = input;
      const wallet = caller.via === 'wallet';
      const key = wallet ? null : caller.apiKey;
      const now = deps.now();
      const window = key && hasLimit(key) ? keyWindow(key.limitPeriod, now) : null;
      const p = pricingOf(input.priceAs ?? model);
      const maxUsd = openedReservationMicros(input);
      const withMarginUsd = input.marginPromptTokens
        ? openedReservationMicros({ ...input, estimatedPromptTokens: input.estimatedPromptTokens + input.marginPromptTokens })
        : maxUsd;
      const candidates = holdCandidates(caller, key, window, p, maxUsd, withMarginUsd);
      const planned = deps.limits.plan(
        caller,
        model,
        input.endpoint ?? 'unmetered',
        input.estimatedPromptTokens + input.maxCompletionTokens,
        input.routeLimit,
      );
      const o: Opening = {
        input,
        caller,
        key,
        window,
        plan: null,
        reserve: {
          accountId: caller.accountId,
          requestId: input.ctx.requestId,
          candidates,
          report: wallet ? WALLET_REPORT : KEY_REPORT,
          now,
          expiresAt: input.holdUntil ?? now + cfg.holdTtlMs,
          counterTtlMs: window?.ttlMs ?? 0,
          rate: null,
        },
      };
      if (planned instanceof Promise) return openLater(o, planned, undefined);
      o.plan = o.reserve.rate = planned;
      const init = ensure(caller, key, window, false);
      if (init) return openLater(o, null, init);
      const reserved = store.reserve(o.reserve);
      if (reserved instanceof Promise || reserved.status !== 'held' || input.holdUntil !== undefined) return concluded(o, reserved);
      const headers: Record<string, string> = {};
      // Throws the 429 of a refused count (no hold was taken).
      const admission = o.plan ? deps.limits.conclude(o.plan, reserved.rate!, o.reserve.requestId, headers) : NOTHING_COUNTED;
      try {
        return ticketOf(o, reserved, headers, admission);
      } catch (error) {
        return givenBack(admission, error);
      }
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** `open` from its first step that is a promise: the plan, or the mirrors' initialisation. */
  async function openLater(o: Opening, planned: Promise<LimitPlan | null> | null, init: Promise<void> | undefined): Promise<MeterTicket> {
    if (planned) {
      o.plan = o.reserve.rate = await planned;
      init = ensure(o.caller, o.key, o.window, false);
    }
    if (init) await init;
    return concluded(o, store.reserve(o.reserve));
  }

  /** The ticket of a reservation the store answered, or its refusal (the general case of `open`). */
  async function concluded(o: Opening, reserved: ReserveResult | Promise<ReserveResult>): Promise<MeterTicket> {
    const { caller, key, window, reserve } = o;
    let result = reserved instanceof Promise ? await reserved : reserved;
    const headers: Record<string, string> = {};
    // Throws the 429 of a refused count (no hold was taken).
    const admission = o.plan ? deps.limits.conclude(o.plan, result.rate!, reserve.requestId, headers) : NOTHING_COUNTED;
    // The store kept the tokens with a hold, and with a missing mirror; it gave them back with a refusal.
    const tokensKept = result.status === 'held' || result.status === 'missing';
    try {
      if (result.status === 'missing') {
        // Mirrors or counters vanished (KV flushed, window rolled over on another instance): initialise again.
        await ensure(caller, key, window, true);
        reserve.rate = null;
        result = await store.reserve(reserve);
        if (result.status === 'missing') throw new Error('billing: balance mirror missing after initialisation');
      }
      if (result.status !== 'held') {
        const error = refusal(caller, result, reserve.candidates);
        Object.assign(error.headers, headers);
        throw error;
      }
      const held = reserve.candidates[result.index]!;
      if (o.input.holdUntil !== undefined)
        await keep({ requestId: reserve.requestId, caller, key, model: o.input.model, held, expiresAt: reserve.expiresAt });
      return ticketOf(o, result, headers, admission);
    } catch (error) {
      if (tokensKept) await admission.settleTokens(0);
      throw error;
    }
  }

  /** The error of a failed opening, once the tokens the limiter kept are given back. */
  async function givenBack(admission: RateLimitAdmission, error: unknown): Promise<never> {
    await admission.settleTokens(0);
    throw error;
  }

  /** The ticket of a held reservation, with the balance headers. */
  function ticketOf(
    o: Opening,
    result: Extract<ReserveResult, { status: 'held' }>,
    headers: Record<string, string>,
    admission: RateLimitAdmission,
  ): MeterTicket {
    const balances: MeterTicket['balances'] = { usd: result.balances[0]!, diem: result.balances[1]! };
    headers['x-svc-balance-usd'] = formatMicros(balances.usd);
    headers['x-svc-balance-diem'] = formatMicros(balances.diem);
    if (o.caller.via === 'wallet') {
      balances.usdc = result.balances[2]!;
      headers['x-balance-remaining'] = formatMicros(balances.usdc);
    }
    return createTicket(ticketDeps, {
      accountId: o.caller.accountId,
      apiKeyId: o.key?.id ?? null,
      keyPeriod: o.key?.limitPeriod ?? null,
      model: o.input.model,
      held: o.reserve.candidates[result.index]!,
      admission,
      shown: { headers, balances },
      requestId: o.reserve.requestId,
      durable: o.input.holdUntil !== undefined,
    });
  }

  /** Records a reservation that outlives its request; if that fails, the hold is given back and the error thrown. */
  async function keep(r: {
    requestId: string;
    caller: Caller;
    key: ApiKeyRecord | null;
    model: MeterOpenInput['model'];
    held: HoldCandidate;
    expiresAt: number;
  }) {
    try {
      await saveReservation(deps.db, {
        requestId: r.requestId,
        accountId: r.caller.accountId,
        apiKeyId: r.key?.id ?? null,
        modelId: r.model?.id ?? null,
        currency: r.held.currency,
        amount: r.held.amount,
        counter: r.held.counter,
        expiresAt: r.expiresAt,
      });
    } catch (error) {
      await store.release(r.caller.accountId, r.requestId, cfg.settledTtlMs);
      throw error;
    }
  }

  const keeper = createReservationKeeper({
    ...ticketDeps,
    models: deps.models,
    ensureMirror: (accountId) => once(accountId, mirrored, false, () => initBalanceMirror(deps.db, store, accountId)),
  });

  return {
    store,
    billing: cfg,
    open,
    async balances(accountId) {
      await once(accountId, mirrored, false, () => initBalanceMirror(deps.db, store, accountId));
      let values = await store.balances(accountId, CURRENCIES);
      if (values.includes(null)) {
        await once(accountId, mirrored, true, () => initBalanceMirror(deps.db, store, accountId));
        values = await store.balances(accountId, CURRENCIES);
      }
      const out: Partial<Record<Currency, number>> = {};
      CURRENCIES.forEach((c, i) => (out[c] = values[i] ?? 0));
      return out;
    },
    async credit(input) {
      let added = false;
      try {
        return await creditAccount(deps.db, input, async () => {
          added = await store.addIfMirrored(input.accountId, input.currency, input.amountMicros, input.requestId);
        });
      } catch (error) {
        // The transaction failed after the mirror was credited: take it back.
        if (added) await store.undoAdd(input.accountId, input.currency, input.amountMicros, input.requestId);
        throw error;
      }
    },
    liveHolds: (accountId) => store.liveHolds(accountId),
    unwrittenCharges: (accountId) => store.unwritten(accountId),
    ledgerProblem: () => writer.problem(),
    async forget(accountId, extra) {
      mirrored.delete(accountId);
      for (const counter of extra.counters) counted.delete(counter);
      await store.forget(accountId, extra);
    },
    resume: keeper.resume,
    async recover() {
      const recovered = await keeper.recover();
      const unjournaled = (await store.recoverUnjournaled?.()) ?? 0;
      if (unjournaled > 0)
        deps.log.warn('billing: settlements charged before a crash but missing from the journal were queued for the ledger', {
          count: unjournaled,
        });
      return recovered;
    },
    expireReservations: keeper.expire,
    flush: () => writer.flush(),
    async close() {
      keeper.stop();
      await writer.close();
    },
  };
}
