import type { AdmitResult, LimitStore, RateCount, TokenCorrection } from '../limits/store';
import type { Currency } from './credit';
import { LedgerOutbox } from './ledger-outbox';
import { SettledIds } from './settled-ids';
import type { BillingStore, Charged, ReserveInput, ReserveResult, SettleInput } from './store';

/** One account's live state: balance mirrors and the sums of its live holds, by currency. */
interface Account {
  mirrors: Map<string, number>;
  held: Map<string, number>;
}

interface Hold {
  account: Account;
  currency: Currency;
  amount: number;
  /** The key counter the hold counts against, '' when the key has no limit. */
  counter: string;
  expiresAt: number;
}

interface Counter {
  value: number;
  expiresAt: number;
}

/**
 * The billing store of a single process: plain Maps, atomic because each operation runs
 * without awaiting. Honours the injected clock for hold and counter expiry. Settlements go
 * to the ledger outbox (journaled to disk when `billing.journalDir` is set). The rate-limit
 * parts of reserve, settle and release go to `limits` (the limiter's store), in turn: each
 * step is atomic and the outcome is as if they ran in one (a rate refusal takes no hold, a
 * balance refusal gives the reserved tokens back).
 */
export function createMemoryBillingStore(opts: { now: () => number; outbox?: LedgerOutbox; limits?: LimitStore | null }): BillingStore {
  const outbox = opts.outbox ?? new LedgerOutbox();
  // Nested by account, so a lookup builds no `account:currency` string (they were a tenth of the store's cost).
  const accounts = new Map<string, Account>();
  const holds = new Map<string, Hold>();
  const counters = new Map<string, Counter>();
  /** Per key counter: the sum of live holds counted against it. */
  const counterHeld = new Map<string, number>();
  const settled = new SettledIds(opts.now);
  const applied = new Set<string>();

  function accountOf(accountId: string): Account {
    let a = accounts.get(accountId);
    if (a === undefined) accounts.set(accountId, (a = { mirrors: new Map(), held: new Map() }));
    return a;
  }
  const add = (map: Map<string, number>, key: string, by: number) => map.set(key, (map.get(key) ?? 0) + by);

  function counterValue(key: string, now: number): number | null {
    const c = counters.get(key);
    if (!c) return null;
    if (c.expiresAt <= now) {
      counters.delete(key);
      return null;
    }
    return c.value;
  }
  function addCounter(key: string, by: number, ttlMs: number, now: number) {
    const c = counters.get(key);
    if (c && c.expiresAt > now) c.value += by;
    else counters.set(key, { value: by, expiresAt: ttlMs > 0 ? now + ttlMs : Infinity });
  }

  function dropHold(requestId: string, hold: Hold) {
    holds.delete(requestId);
    add(hold.account.held, hold.currency, -hold.amount);
    if (hold.counter) add(counterHeld, hold.counter, -hold.amount);
  }

  /** Earliest expiry among live holds: the sweep runs only once something can have expired. */
  let earliest = Infinity;
  function sweep(now: number) {
    if (now < earliest) return;
    earliest = Infinity;
    for (const [id, hold] of holds)
      if (hold.expiresAt <= now) dropHold(id, hold);
      else if (hold.expiresAt < earliest) earliest = hold.expiresAt;
  }

  function rates(): LimitStore {
    if (!opts.limits) throw new Error('billing: a rate-limit count without a limit store');
    return opts.limits;
  }
  /** The limiter's token correction; undefined when there is none (no promise then). */
  function correct(tokens: TokenCorrection | null | undefined): void | Promise<void> {
    return tokens ? rates().correctTokens(tokens.key, tokens.window, tokens.delta) : undefined;
  }

  function takeHold(input: ReserveInput): ReserveResult {
    const now = input.now;
    sweep(now);
    const account = accountOf(input.accountId);
    const balances: number[] = [];
    for (const c of input.report) {
      const v = account.mirrors.get(c);
      if (v === undefined) return { status: 'missing' };
      balances.push(v);
    }
    let refusedByLimit = -1;
    for (let i = 0; i < input.candidates.length; i++) {
      const c = input.candidates[i]!;
      const balance = account.mirrors.get(c.currency);
      if (balance === undefined) return { status: 'missing' };
      if (balance - (account.held.get(c.currency) ?? 0) < c.amount + (c.floor ?? 0)) continue;
      if (c.counter) {
        const spent = counterValue(c.counter, now);
        if (spent === null) return { status: 'missing' };
        if (spent + (counterHeld.get(c.counter) ?? 0) + c.amount > c.limit) {
          if (refusedByLimit < 0) refusedByLimit = i;
          continue;
        }
        add(counterHeld, c.counter, c.amount);
      }
      add(account.held, c.currency, c.amount);
      holds.set(input.requestId, { account, currency: c.currency, amount: c.amount, counter: c.counter, expiresAt: input.expiresAt });
      if (input.expiresAt < earliest) earliest = input.expiresAt;
      return { status: 'held', index: i, balances };
    }
    return refusedByLimit >= 0 ? { status: 'limit', index: refusedByLimit, balances } : { status: 'insufficient', balances };
  }

  /** The hold of a request the limiter admitted (or the refusal); a refused hold gives the reserved tokens back. */
  function holdAdmitted(input: ReserveInput, count: RateCount, rate: AdmitResult): ReserveResult | Promise<ReserveResult> {
    if (rate.refused) return { status: 'rated', rate };
    const result: ReserveResult = takeHold(input);
    result.rate = rate;
    if ((result.status === 'insufficient' || result.status === 'limit') && count.tokens) {
      const corrected = rates().correctTokens(count.key, rate.window, -count.tokens.reserve);
      if (corrected instanceof Promise) return thenValue(corrected, result);
    }
    return result;
  }

  // Apart from `reserve`: a closure there would give every call a scope, awaited or not.
  function holdOnceAdmitted(input: ReserveInput, count: RateCount, rate: Promise<AdmitResult>): Promise<ReserveResult> {
    return rate.then((admitted) => holdAdmitted(input, count, admitted));
  }

  return {
    backend: 'memory',
    // Not async: with the in-process limiter a reservation is done at once (an async step costs
    // 3 to 5 objects a request); a promise only when the limiter's store is remote.
    reserve(input: ReserveInput): ReserveResult | Promise<ReserveResult> {
      const count = input.rate;
      if (!count) return takeHold(input);
      const rate = rates().admit(count.key, count.rpm, count.tokens);
      return rate instanceof Promise ? holdOnceAdmitted(input, count, rate) : holdAdmitted(input, count, rate);
    },
    // Not async: in process a settlement is done at once (the charge as a value, no promise); a
    // promise only when the limiter's token correction is remote.
    settle(input: SettleInput): Charged | Promise<Charged> {
      const now = opts.now();
      const done = settled.get(input.requestId);
      if (done) return done;
      const hold = holds.get(input.requestId);
      if (hold) dropHold(input.requestId, hold);
      // Charged even when the hold expired: the work was done (the balance may dip below zero).
      add(accountOf(input.accountId).mirrors, input.currency, -input.amount);
      if (input.counter) addCounter(input.counter, input.amount, input.counterTtlMs, now);
      outbox.push(input.charge);
      const charged = { currency: input.currency, amount: input.amount };
      settled.set(input.requestId, charged, input.settledTtlMs);
      const corrected = correct(input.tokens);
      return corrected instanceof Promise ? thenValue(corrected, charged) : charged;
    },
    async hasHold(_accountId, requestId) {
      const hold = holds.get(requestId);
      return hold !== undefined && hold.expiresAt > opts.now();
    },
    async release(_accountId, requestId, settledTtlMs, tokens) {
      const done = settled.get(requestId);
      if (done) return done;
      const held = holds.get(requestId);
      if (held) dropHold(requestId, held);
      settled.set(requestId, { currency: held?.currency ?? 'USD', amount: 0 }, settledTtlMs);
      await correct(tokens);
      return null;
    },
    async initBalances(accountId, values) {
      const { mirrors } = accountOf(accountId);
      for (const [currency, v] of Object.entries(values)) if (!mirrors.has(currency)) mirrors.set(currency, v ?? 0);
    },
    async initCounter(counter, spent, ttlMs) {
      const now = opts.now();
      if (counterValue(counter, now) === null) counters.set(counter, { value: spent, expiresAt: ttlMs > 0 ? now + ttlMs : Infinity });
    },
    async addIfMirrored(accountId, currency, amount, requestId) {
      const mirrors = accounts.get(accountId)?.mirrors;
      if (!mirrors?.has(currency) || applied.has(requestId)) return false;
      applied.add(requestId);
      add(mirrors, currency, amount);
      return true;
    },
    async undoAdd(accountId, currency, amount, requestId) {
      if (applied.delete(requestId)) add(accountOf(accountId).mirrors, currency, -amount);
    },
    async balances(accountId, currencies) {
      const mirrors = accounts.get(accountId)?.mirrors;
      return currencies.map((c) => mirrors?.get(c) ?? null);
    },
    async liveHolds(accountId) {
      sweep(opts.now());
      const account = accounts.get(accountId);
      let n = 0;
      if (account) for (const hold of holds.values()) if (hold.account === account) n++;
      return n;
    },
    async forget(accountId, extra) {
      const account = accounts.get(accountId);
      if (account) for (const [id, hold] of holds) if (hold.account === account) dropHold(id, hold);
      accounts.delete(accountId);
      for (const counter of extra.counters) (counters.delete(counter), counterHeld.delete(counter));
      for (const id of extra.credits) applied.delete(id);
    },
    async unwritten(accountId) {
      return outbox.queuedFor(accountId);
    },
    async written() {},
    async takeBatch(max) {
      return outbox.takeBatch(max);
    },
    async queued() {
      return outbox.size;
    },
  };
}

/** `value` once `done` has settled. Apart from its callers: a closure there would give every call a scope. */
function thenValue<T>(done: Promise<unknown>, value: T): Promise<T> {
  return done.then(() => value);
}
