import type { RedisLink } from '../kv/redis-link';
import { runScript } from '../kv/scripts';
import { KvUnavailableError } from '../kv/unavailable';
import { rateKey, rateResult } from '../limits/redis-scripts';
import { WINDOW_MS, type TokenCorrection } from '../limits/store';
import { CURRENCIES } from './mirror-init';
import type { LedgerOutbox, OutboxItem } from './ledger-outbox';
import type { Logger } from '../log';
import { SettleBatcher } from './settle-batcher';
import { PendingCharges, type PendingItem } from './pending-charges';
import { ADD_IF_MIRRORED, INDEX_HOLD, INIT_BALANCES, RELEASE, SETTLE, UNDO_ADD } from './redis-scripts';
import { AdmissionGroups } from './redis-admissions';
import { SettleReplays } from './settle-replays';
import type { BillingStore, Charged, ReserveResult, SettleInput } from './store';
import {
  AccountKeys,
  STATUS,
  current,
  holdIndexKey,
  pairs,
  parseCharged,
  parseMark,
  reserveCall,
  settleCall,
  writerIndexKey,
} from './redis-calls';

/** How long a credit's "applied to the mirror" marker lives (retries come much sooner). */
const APPLIED_TTL_MS = 7 * 24 * 3_600_000;
/** How long the done marker of a settlement applied at start (read back from the journal) lives. */
const RECOVERED_SETTLED_TTL_MS = 60_000;

/** A deferred settlement waiting for its group: its input, its outbox entry (null: no ledger row) and its pending sums. */
interface Deferred extends PendingItem {
  input: SettleInput;
  item: OutboxItem | null;
}

/**
 * The billing store shared by every instance through Redis: each operation is one Lua
 * script (EVALSHA) over the account's keys, so reservations on many instances cannot
 * overspend and a settlement is applied once. A reservation carries the request's rate-limit
 * count and a settlement its token correction, in the same script: one round trip each. A
 * charge's ledger row goes to this instance's outbox, not through Redis. A settlement that
 * cannot reach Redis (down, restarting) is still charged: its row goes to the outbox all the
 * same, and its script is replayed when Redis is back (SettleReplays).
 *
 * The global hold index (read by the sweep that frees holds of instances that died) lives
 * in its own slot, so no account script can write it: the reserve script keeps a marker in
 * the account's slot and asks for an index write only when the index may not cover the
 * account's earliest hold (its first hold, an earlier one, or the marker is due), about once
 * per account per hold lifetime; that write is sent after the reply, not waited for.
 */
export function createRedisBillingStore(
  redis: RedisLink,
  prefix: string,
  outbox: LedgerOutbox,
  opts: { settleBatchMs: number; settleBatchMax: number; log?: Logger } = { settleBatchMs: 0, settleBatchMax: 1 },
): BillingStore & { close(): void } {
  const log = opts.log;
  const index = holdIndexKey(prefix);
  const names = new Map<string, AccountKeys>();
  const writerId = outbox.writerId;
  const writerIndex = writerId ? writerIndexKey(prefix, writerId) : '';
  const indexed = new Set<string>();

  /**
   * Adds the account to this journal's index before its first settlement here (sent in the
   * same tick as the script, so Bun pipelines them): the next start on the journal reads the
   * unwritten marks of these accounts only.
   */
  function indexAccount(accountId: string) {
    if (indexed.has(accountId)) return;
    if (indexed.size >= 100_000) indexed.clear();
    indexed.add(accountId);
    redis.send('SADD', [writerIndex, accountId]).catch(() => indexed.delete(accountId));
  }

  /**
   * The settlements a crash of the previous process on this journal took between Redis
   * applying them (mirror charged, unwritten mark set) and their journal line: queued for the
   * ledger now, so the database catches up with the mirror. Returns how many.
   */
  async function recoverUnjournaled(): Promise<number> {
    if (!writerId) return 0;
    const landed = await landRecovered();
    const accounts = (await redis.send('SMEMBERS', [writerIndex])) as string[];
    let found = 0;
    for (const accountId of accounts) {
      const flat = (await redis.send('HGETALL', [keysOf(accountId).unwritten])) as string[] | Record<string, string>;
      const entries = Array.isArray(flat) ? pairs(flat) : Object.entries(flat ?? {});
      for (const [requestId, value] of entries) {
        const mark = parseMark(value);
        if (mark?.writer !== writerId || outbox.holds(requestId)) continue;
        outbox.push(mark.charge);
        found++;
      }
    }
    return found + landed;
  }

  /** The account's key names, built once per account (a request needs up to a dozen). */
  function keysOf(accountId: string): AccountKeys {
    let k = names.get(accountId);
    if (k === undefined) {
      if (names.size >= 100_000) names.clear();
      names.set(accountId, (k = new AccountKeys(prefix, accountId)));
    }
    return k;
  }

  const rateHash = (k: AccountKeys, t: TokenCorrection | null) => (t ? rateKey(prefix, t.key, t.window) : k.hsum);
  const delta = (t: TokenCorrection | null) => (t ? String(t.delta) : '0');

  /** Applies settlements of one account in one script; per settlement, whether this call charged and the outcome. */
  async function settleScript(accountId: string, inputs: readonly SettleInput[], onlyIfHeld: boolean, journaled = false) {
    const k = keysOf(accountId);
    if (writerId) indexAccount(accountId);
    const { keys, args } = settleCall(prefix, k, inputs, onlyIfHeld, writerId, journaled);
    const reply = (await runScript(redis, SETTLE, keys, args)) as (number | string)[];
    const out: { applied: boolean; charged: Charged }[] = [];
    for (let i = 0; i + 1 < reply.length; i += 2)
      out.push({ applied: Number(reply[i]) === 1, charged: parseCharged(reply[i + 1]) as Charged });
    return out;
  }

  /**
   * Lands a deferred group (one account's settlements, already journaled and answered): one
   * script. A group Redis cannot take (down, or a failure that would repeat) is replayed
   * like an outage's settlements. Either way the ledger may then write the rows.
   */
  async function land(accountId: string, group: Deferred[]): Promise<void> {
    // Stamped in the tick its script is written: reads written after it hold these charges.
    const sent = pending.sent(accountId, group);
    try {
      const outcomes = await settleScript(
        accountId,
        group.map((d) => d.input),
        false,
        true,
      );
      for (let i = 0; i < group.length; i++)
        if (!outcomes[i]?.applied)
          log?.warn('billing: a deferred settlement found its request settled already', { requestId: group[i]!.input.requestId });
    } catch (error) {
      if (!(error instanceof KvUnavailableError))
        log?.error('billing: deferred settlements failed in Redis; replayed', { count: group.length, error: String(error) });
      for (const d of group) replays.settle(d.input);
    }
    const items: OutboxItem[] = [];
    for (const d of group) if (d.item) items.push(d.item);
    pending.landed(accountId, sent);
    outbox.landed(items);
  }

  const pending = new PendingCharges();
  const admissions = new AdmissionGroups(redis, () => pending.stamp());
  const batcher = opts.settleBatchMs > 0 ? new SettleBatcher<Deferred>(opts.settleBatchMs, opts.settleBatchMax, land) : null;

  /**
   * Applies the settlements a crash took between their journal line and Redis (read back
   * from the journal, not landed): before the ledger writes them, so a mirror Redis has now
   * was made from a database without them, and the charge is applied even without its hold
   * (expired meanwhile). The done marker keeps one that did land from counting twice.
   */
  async function landRecovered(): Promise<number> {
    const byAccount = new Map<string, { input: SettleInput; item: OutboxItem }[]>();
    for (const item of outbox.unlanded()) {
      const c = item.charge;
      const input: SettleInput = {
        accountId: c.accountId,
        requestId: c.requestId,
        currency: c.currency,
        amount: -c.amount,
        counter: item.intent!.counter,
        counterTtlMs: item.intent!.counterTtlMs,
        charge: c,
        settledTtlMs: RECOVERED_SETTLED_TTL_MS,
      };
      const group = byAccount.get(c.accountId);
      if (group) group.push({ input, item });
      else byAccount.set(c.accountId, [{ input, item }]);
    }
    for (const [accountId, group] of byAccount) {
      await settleScript(
        accountId,
        group.map((g) => g.input),
        false,
      );
      outbox.landed(group.map((g) => g.item));
    }
    return byAccount.size === 0 ? 0 : [...byAccount.values()].reduce((n, g) => n + g.length, 0);
  }

  async function releaseScript(accountId: string, requestId: string, settledTtlMs: number, correction?: TokenCorrection | null) {
    const k = keysOf(accountId);
    const tokens = current(correction);
    const keys = [k.hsum, k.hreq, k.hexp, k.done(requestId), rateHash(k, tokens)];
    return parseCharged(await runScript(redis, RELEASE, keys, [requestId, String(settledTtlMs), delta(tokens)]));
  }

  /** Writes the account's earliest hold expiry to the global index; on failure the marker goes, so the next reservation asks again. */
  function indexHold(k: AccountKeys, accountId: string, expiry: string, now: number) {
    runScript(redis, INDEX_HOLD, [index], [accountId, expiry, String(now)]).catch(() => redis.send('DEL', [k.ix]).catch(() => null));
  }

  const replays = new SettleReplays(redis, {
    settle: (input) => settleScript(input.accountId, [input], true),
    release: (a, r, ttl) => releaseScript(a, r, ttl),
  });

  /**
   * Lands the account's deferred settlements first when it has any: a settlement or release
   * of a request id that may be among them (a retry from elsewhere) then meets its outcome,
   * and this instance's reads of the account's holds and marks see its own settlements.
   */
  async function landFirst(accountId: string) {
    if (batcher && pending.has(accountId)) await batcher.flush();
  }

  async function settleNow(input: SettleInput): Promise<Charged> {
    await landFirst(input.accountId);
    try {
      const [outcome] = await settleScript(input.accountId, [input], false);
      if (outcome!.applied) outbox.push(input.charge);
      return outcome!.charged;
    } catch (error) {
      if (!(error instanceof KvUnavailableError)) throw error;
      // Served, so charged: the ledger gets the charge now, Redis gets the script when it is back.
      outbox.push(input.charge);
      replays.settle(input);
      return { currency: input.currency, amount: input.amount };
    }
  }

  return {
    backend: 'redis',
    async reserve(input): Promise<ReserveResult> {
      const k = keysOf(input.accountId);
      const rate = input.rate;
      const at = rate ? Date.now() : 0;
      const window = Math.floor(at / WINDOW_MS);
      const { keys, args } = reserveCall(k, input, rate ? rateKey(prefix, rate.key, window) : null, prefix);
      let admitted = await admissions.reserve(input.accountId, keys, args);
      // A token-rate refusal may come from this instance's own settlements on their way: their
      // token corrections (a cache hit's whole estimate, an answer shorter than max_tokens) are
      // not in Redis's window yet. Land them and decide once more; a 'rated' refusal changed
      // nothing in Redis, so the second decision counts the request once.
      if (batcher && rate && STATUS[Number((admitted.reply as unknown[])[0])] === 'rated' && pending.tokens(keys[4]!, admitted.stamp) < 0) {
        await batcher.flush();
        admitted = await admissions.reserve(input.accountId, keys, args);
      }
      const reply = admitted.reply as (number | string)[];
      const status = STATUS[Number(reply[0])]!;
      let result: ReserveResult;
      if (status === 'missing' || status === 'rated') result = { status };
      else {
        const balances: number[] = [];
        for (let i = 6; i < reply.length; i++) balances.push(Number(reply[i]));
        if (pending.has(input.accountId))
          for (let i = 0; i < balances.length; i++)
            balances[i] = pending.less(input.accountId, input.report[i]!, balances[i]!, admitted.stamp)!;
        result = status === 'insufficient' ? { status, balances } : { status, index: Number(reply[1]), balances };
      }
      if (rate) {
        result.rate = rateResult(reply, 2, at, window, WINDOW_MS);
        if (batcher) result.rate.tokens += pending.tokens(keys[4]!, admitted.stamp);
      }
      if (status === 'held' && reply[5] !== 0 && reply[5] !== '0') indexHold(k, input.accountId, String(reply[5]), input.now);
      return result;
    },
    settle(input) {
      if (batcher && input.deferrable) {
        // Journaled now (a crash loses nothing), answered now from the known charge; the hold
        // covers the call in Redis until its group lands, so nothing can be overspent.
        const item = outbox.push(input.charge, { counter: input.counter, counterTtlMs: input.counterTtlMs });
        const tokens = current(input.tokens);
        const window = tokens && tokens.delta !== 0 ? rateKey(prefix, tokens.key, tokens.window) : null;
        const deferred: Deferred = {
          input,
          item,
          currency: input.currency,
          amount: input.amount,
          window,
          tokens: window ? tokens!.delta : 0,
        };
        pending.add(input.accountId, deferred);
        batcher.add(input.accountId, deferred);
        return { currency: input.currency, amount: input.amount };
      }
      return settleNow(input);
    },
    async hasHold(accountId, requestId) {
      await landFirst(accountId);
      return Number(await redis.send('HEXISTS', [keysOf(accountId).hreq, requestId])) === 1;
    },
    async release(accountId, requestId, settledTtlMs, tokens) {
      await landFirst(accountId);
      try {
        return await releaseScript(accountId, requestId, settledTtlMs, tokens);
      } catch (error) {
        if (!(error instanceof KvUnavailableError)) throw error;
        // The token give-back is not replayed: its minute is over by then.
        replays.release(accountId, requestId, settledTtlMs);
        return null;
      }
    },
    async initBalances(accountId, values) {
      const k = keysOf(accountId);
      const entries = Object.entries(values);
      await runScript(
        redis,
        INIT_BALANCES,
        entries.map(([currency]) => k.bal(currency)),
        entries.map(([, v]) => String(v ?? 0)),
      );
    },
    async initCounter(counter, spent, ttlMs) {
      const args = [prefix + counter, String(spent)];
      if (ttlMs > 0) args.push('PX', String(Math.ceil(ttlMs)));
      await redis.send('SET', [...args, 'NX']);
    },
    async addIfMirrored(accountId, currency, amount, requestId) {
      const k = keysOf(accountId);
      const reply = await runScript(
        redis,
        ADD_IF_MIRRORED,
        [k.bal(currency), k.applied(requestId)],
        [String(amount), String(APPLIED_TTL_MS)],
      );
      return Number(reply) === 1;
    },
    async undoAdd(accountId, currency, amount, requestId) {
      const k = keysOf(accountId);
      await runScript(redis, UNDO_ADD, [k.bal(currency), k.applied(requestId)], [String(amount)]);
    },
    async balances(accountId, currencies) {
      const k = keysOf(accountId);
      const stamp = pending.stamp();
      const reply = (await redis.send(
        'MGET',
        currencies.map((c) => k.bal(c)),
      )) as (string | null)[];
      return reply.map((v, i) => pending.less(accountId, currencies[i]!, v === null ? null : Number(v), stamp));
    },
    recoverUnjournaled,
    async liveHolds(accountId) {
      await landFirst(accountId);
      return Number(await redis.send('HLEN', [keysOf(accountId).hreq]));
    },
    async unwritten(accountId) {
      await landFirst(accountId);
      return Number(await redis.send('HLEN', [keysOf(accountId).unwritten]));
    },
    async written(charges) {
      const byAccount = new Map<string, string[]>();
      for (const c of charges) {
        const ids = byAccount.get(c.accountId);
        if (ids) ids.push(c.requestId);
        else byAccount.set(c.accountId, [c.requestId]);
      }
      // One HDEL per account, sent in the same tick (Bun pipelines them).
      await Promise.all([...byAccount].map(([accountId, ids]) => redis.send('HDEL', [keysOf(accountId).unwritten, ...ids])));
    },
    async forget(accountId, extra) {
      const k = keysOf(accountId);
      names.delete(accountId);
      // Every key carries the account's hash tag: one DEL, one cluster slot.
      const keys = [
        k.hsum,
        k.hreq,
        k.hexp,
        k.ix,
        k.unwritten,
        ...CURRENCIES.map((c) => k.bal(c)),
        ...extra.counters.map((c) => prefix + c),
        ...extra.credits.map((id) => k.applied(id)),
      ];
      await Promise.all([redis.send('DEL', keys), redis.send('ZREM', [index, accountId])]);
    },
    async takeBatch(max) {
      // Deferred settlements reach the ledger once landed: land the waiting ones now.
      if (batcher && batcher.size > 0) await batcher.flush();
      return outbox.takeBatch(max);
    },
    async queued() {
      return outbox.size;
    },
    close() {
      batcher?.close();
      replays.close();
    },
  };
}
