import { createHash } from 'node:crypto';
import type { RedisCommands, RedisLink } from '../kv/redis-link';
import { KvUnavailableError } from '../kv/unavailable';
import type { Currency } from './credit';
import { CURRENCIES } from './mirror-init';
import type { LedgerOutbox } from './ledger-outbox';
import { ADD_IF_MIRRORED, INIT_BALANCES, RELEASE, RESERVE, SETTLE, UNDO_ADD } from './redis-scripts';
import { SettleReplays } from './settle-replays';
import type { BillingStore, Charged, ReserveResult, SettleInput } from './store';

/** How long a credit's "applied to the mirror" marker lives (retries come much sooner). */
const APPLIED_TTL_MS = 7 * 24 * 3_600_000;

const STATUS = ['held', 'missing', 'insufficient', 'limit'] as const;

function parseCharged(reply: unknown): Charged | null {
  if (typeof reply !== 'string') return null;
  const bar = reply.indexOf('|');
  return { currency: reply.slice(0, bar) as Currency, amount: Number(reply.slice(bar + 1)) };
}

/** EVALSHA of a script (its SHA-1 computed once), EVAL after a NOSCRIPT (a restarted or new server). */
export function scriptRunner(redis: RedisCommands) {
  const shas = new Map<string, string>();
  return async function run(script: string, keys: string[], args: string[]): Promise<unknown> {
    let sha = shas.get(script);
    if (!sha) {
      sha = createHash('sha1').update(script).digest('hex');
      shas.set(script, sha);
    }
    try {
      return await redis.send('EVALSHA', [sha, String(keys.length), ...keys, ...args]);
    } catch (error) {
      if (!String(error).includes('NOSCRIPT')) throw error;
      return redis.send('EVAL', [script, String(keys.length), ...keys, ...args]);
    }
  };
}

/** The account's key names: every one carries the `{account}` hash tag (one cluster slot). */
export function accountKeys(prefix: string, accountId: string) {
  const base = `${prefix}bill:{${accountId}}:`;
  return {
    hsum: `${base}hsum`,
    hreq: `${base}hreq`,
    hexp: `${base}hexp`,
    done: (requestId: string) => `${base}done:${requestId}`,
    bal: (currency: string) => `${base}bal:${currency}`,
    applied: (requestId: string) => `${base}applied:${requestId}`,
  };
}

/** The index of accounts with holds (account -> earliest expiry) that the hold sweep reads. */
export const holdIndexKey = (prefix: string) => `${prefix}bill:holds`;

/**
 * The billing store shared by every instance through Redis: each operation is one Lua
 * script (EVALSHA, loaded on first use) over the account's keys, so reservations on many
 * instances cannot overspend and a settlement is applied once. A charge's ledger rows go to
 * this instance's outbox, not through Redis. A settlement that cannot reach Redis (down,
 * restarting) is still charged: its rows go to the outbox all the same, and its script is
 * replayed when Redis is back (SettleReplays).
 */
export function createRedisBillingStore(redis: RedisLink, prefix: string, outbox: LedgerOutbox): BillingStore & { close(): void } {
  const run = scriptRunner(redis);
  const index = holdIndexKey(prefix);

  async function settleScript(input: SettleInput, onlyIfHeld: boolean) {
    const k = accountKeys(prefix, input.accountId);
    const counter = input.counter ? prefix + input.counter : k.hsum;
    const reply = (await run(
      SETTLE,
      [k.hsum, k.hreq, k.hexp, k.done(input.requestId), k.bal(input.currency), counter],
      [
        input.requestId,
        input.currency,
        String(input.amount),
        input.counter ? '1' : '0',
        String(input.counterTtlMs),
        String(input.settledTtlMs),
        onlyIfHeld ? '1' : '0',
      ],
    )) as [number, string];
    return { applied: Number(reply[0]) === 1, charged: parseCharged(reply[1]) as Charged };
  }

  async function releaseScript(accountId: string, requestId: string, settledTtlMs: number) {
    const k = accountKeys(prefix, accountId);
    return parseCharged(await run(RELEASE, [k.hsum, k.hreq, k.hexp, k.done(requestId)], [requestId, String(settledTtlMs)]));
  }

  const replays = new SettleReplays(redis, {
    settle: (input) => settleScript(input, true),
    release: (a, r, ttl) => releaseScript(a, r, ttl),
  });

  return {
    backend: 'redis',
    async reserve(input): Promise<ReserveResult> {
      const k = accountKeys(prefix, input.accountId);
      const keys = [k.hsum, k.hreq, k.hexp, ...input.report.map(k.bal)];
      const args = [
        input.requestId,
        String(input.now),
        String(input.expiresAt),
        String(input.counterTtlMs),
        String(input.report.length),
        String(input.candidates.length),
      ];
      for (const c of input.candidates) {
        keys.push(k.bal(c.currency), c.counter ? prefix + c.counter : k.hsum);
        args.push(c.currency, String(c.amount), c.counter ? String(c.limit) : '');
      }
      // Sent in the same tick as the script (one round trip on a single Redis): the account
      // is indexed for the hold sweep, which frees holds of instances that died. NX keeps the
      // earliest expiry; the sweep moves the entry on.
      const [reply] = await Promise.all([
        run(RESERVE, keys, args) as Promise<(number | string)[]>,
        redis.send('ZADD', [index, 'NX', String(input.expiresAt), input.accountId]).catch(() => null),
      ]);
      const status = STATUS[Number(reply[0])];
      if (status === 'missing') return { status };
      const balances = reply.slice(2).map(Number);
      if (status === 'insufficient') return { status, balances };
      return { status: status as 'held' | 'limit', index: Number(reply[1]), balances };
    },
    async settle(input) {
      try {
        const { applied, charged } = await settleScript(input, false);
        if (applied) outbox.push(input.rows);
        return charged;
      } catch (error) {
        if (!(error instanceof KvUnavailableError)) throw error;
        // Served, so charged: the ledger gets the rows now, Redis gets the script when it is back.
        outbox.push(input.rows);
        replays.settle(input);
        return { currency: input.currency, amount: input.amount };
      }
    },
    async hasHold(accountId, requestId) {
      return Number(await redis.send('HEXISTS', [accountKeys(prefix, accountId).hreq, requestId])) === 1;
    },
    async release(accountId, requestId, settledTtlMs) {
      try {
        return await releaseScript(accountId, requestId, settledTtlMs);
      } catch (error) {
        if (!(error instanceof KvUnavailableError)) throw error;
        replays.release(accountId, requestId, settledTtlMs);
        return null;
      }
    },
    async initBalances(accountId, values) {
      const k = accountKeys(prefix, accountId);
      const entries = Object.entries(values);
      await run(
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
      const k = accountKeys(prefix, accountId);
      const reply = await run(ADD_IF_MIRRORED, [k.bal(currency), k.applied(requestId)], [String(amount), String(APPLIED_TTL_MS)]);
      return Number(reply) === 1;
    },
    async undoAdd(accountId, currency, amount, requestId) {
      const k = accountKeys(prefix, accountId);
      await run(UNDO_ADD, [k.bal(currency), k.applied(requestId)], [String(amount)]);
    },
    async balances(accountId, currencies) {
      const k = accountKeys(prefix, accountId);
      const reply = (await redis.send('MGET', currencies.map(k.bal))) as (string | null)[];
      return reply.map((v) => (v === null ? null : Number(v)));
    },
    async liveHolds(accountId) {
      return Number(await redis.send('HLEN', [accountKeys(prefix, accountId).hreq]));
    },
    async forget(accountId, extra) {
      const k = accountKeys(prefix, accountId);
      // Every key carries the account's hash tag: one DEL, one cluster slot.
      const keys = [
        k.hsum,
        k.hreq,
        k.hexp,
        ...CURRENCIES.map(k.bal),
        ...extra.counters.map((c) => prefix + c),
        ...extra.credits.map(k.applied),
      ];
      await Promise.all([redis.send('DEL', keys), redis.send('ZREM', [index, accountId])]);
    },
    async takeBatch(max) {
      return outbox.takeBatch(max);
    },
    async queued() {
      return outbox.size;
    },
    close() {
      replays.close();
    },
  };
}
