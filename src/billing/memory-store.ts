import type { Currency } from './credit';
import { LedgerOutbox } from './ledger-outbox';
import { SettledIds } from './settled-ids';
import type { BillingStore, Charged, ReserveInput, ReserveResult, SettleInput } from './store';

interface Hold {
  accountId: string;
  currency: Currency;
  amount: number;
  /** Held-sum key of the key counter, '' when the key has no limit. */
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
 * to the ledger outbox (journaled to disk when `billing.journalDir` is set).
 */
export function createMemoryBillingStore(opts: { now: () => number; outbox?: LedgerOutbox }): BillingStore {
  const outbox = opts.outbox ?? new LedgerOutbox();
  const mirrors = new Map<string, number>();
  /** Per account+currency: the sum of live holds. */
  const held = new Map<string, number>();
  const holds = new Map<string, Hold>();
  const counters = new Map<string, Counter>();
  const settled = new SettledIds(opts.now);
  const applied = new Set<string>();

  const mk = (accountId: string, currency: string) => `${accountId}:${currency}`;
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
    add(held, mk(hold.accountId, hold.currency), -hold.amount);
    if (hold.counter) add(held, hold.counter, -hold.amount);
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

  return {
    backend: 'memory',
    async reserve(input: ReserveInput): Promise<ReserveResult> {
      const now = input.now;
      sweep(now);
      const balances: number[] = [];
      for (const c of input.report) {
        const v = mirrors.get(mk(input.accountId, c));
        if (v === undefined) return { status: 'missing' };
        balances.push(v);
      }
      let refusedByLimit = -1;
      for (let i = 0; i < input.candidates.length; i++) {
        const c = input.candidates[i]!;
        const key = mk(input.accountId, c.currency);
        const balance = mirrors.get(key);
        if (balance === undefined) return { status: 'missing' };
        if (balance - (held.get(key) ?? 0) < c.amount) continue;
        if (c.counter) {
          const spent = counterValue(c.counter, now);
          if (spent === null) return { status: 'missing' };
          if (spent + (held.get(c.counter + ':h') ?? 0) + c.amount > c.limit) {
            if (refusedByLimit < 0) refusedByLimit = i;
            continue;
          }
        }
        add(held, key, c.amount);
        if (c.counter) add(held, c.counter + ':h', c.amount);
        holds.set(input.requestId, {
          accountId: input.accountId,
          currency: c.currency,
          amount: c.amount,
          counter: c.counter ? c.counter + ':h' : '',
          expiresAt: input.expiresAt,
        });
        if (input.expiresAt < earliest) earliest = input.expiresAt;
        return { status: 'held', index: i, balances };
      }
      return refusedByLimit >= 0 ? { status: 'limit', index: refusedByLimit, balances } : { status: 'insufficient', balances };
    },
    async settle(input: SettleInput): Promise<Charged> {
      const now = opts.now();
      const done = settled.get(input.requestId);
      if (done) return done;
      const hold = holds.get(input.requestId);
      if (hold) dropHold(input.requestId, hold);
      // Charged even when the hold expired: the work was done (the balance may dip below zero).
      add(mirrors, mk(input.accountId, input.currency), -input.amount);
      if (input.counter) addCounter(input.counter, input.amount, input.counterTtlMs, now);
      outbox.push(input.rows);
      const charged = { currency: input.currency, amount: input.amount };
      settled.set(input.requestId, charged, input.settledTtlMs);
      return charged;
    },
    async hasHold(_accountId, requestId) {
      const hold = holds.get(requestId);
      return hold !== undefined && hold.expiresAt > opts.now();
    },
    async release(_accountId, requestId, settledTtlMs) {
      const done = settled.get(requestId);
      if (done) return done;
      const hold = holds.get(requestId);
      if (hold) dropHold(requestId, hold);
      settled.set(requestId, { currency: hold?.currency ?? 'USD', amount: 0 }, settledTtlMs);
      return null;
    },
    async initBalances(accountId, values) {
      for (const [currency, v] of Object.entries(values))
        if (!mirrors.has(mk(accountId, currency))) mirrors.set(mk(accountId, currency), v ?? 0);
    },
    async initCounter(counter, spent, ttlMs) {
      const now = opts.now();
      if (counterValue(counter, now) === null) counters.set(counter, { value: spent, expiresAt: ttlMs > 0 ? now + ttlMs : Infinity });
    },
    async addIfMirrored(accountId, currency, amount, requestId) {
      const key = mk(accountId, currency);
      if (!mirrors.has(key) || applied.has(requestId)) return false;
      applied.add(requestId);
      add(mirrors, key, amount);
      return true;
    },
    async undoAdd(accountId, currency, amount, requestId) {
      if (applied.delete(requestId)) add(mirrors, mk(accountId, currency), -amount);
    },
    async balances(accountId, currencies) {
      return currencies.map((c) => mirrors.get(mk(accountId, c)) ?? null);
    },
    async liveHolds(accountId) {
      sweep(opts.now());
      let n = 0;
      for (const hold of holds.values()) if (hold.accountId === accountId) n++;
      return n;
    },
    async forget(accountId, extra) {
      for (const [id, hold] of holds) if (hold.accountId === accountId) dropHold(id, hold);
      for (const key of [...mirrors.keys(), ...held.keys()]) if (key.startsWith(`${accountId}:`)) (mirrors.delete(key), held.delete(key));
      for (const counter of extra.counters) (counters.delete(counter), held.delete(counter + ':h'));
      for (const id of extra.credits) applied.delete(id);
    },
    async takeBatch(max) {
      return outbox.takeBatch(max);
    },
    async queued() {
      return outbox.size;
    },
  };
}
