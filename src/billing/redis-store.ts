import type { RedisClient } from 'bun';
import { createHash, randomUUID } from 'node:crypto';
import type { Currency } from './credit';
import type { LedgerRow } from './ledger-row';
import { ACK_BATCH, ADD_IF_MIRRORED, INIT_BALANCES, RELEASE, RESERVE, SETTLE, UNDO_ADD, UNLOCK } from './redis-scripts';
import type { BillingStore, Charged, ReserveResult } from './store';

/** How long a ledger writer may hold the queue before another instance takes over (ms). */
const QUEUE_LOCK_MS = 30_000;
/** How long a credit's "applied to the mirror" marker lives (retries come much sooner). */
const APPLIED_TTL_MS = 7 * 24 * 3_600_000;

const STATUS = ['held', 'missing', 'insufficient', 'limit'] as const;

function parseCharged(reply: unknown): Charged | null {
  if (typeof reply !== 'string') return null;
  const bar = reply.indexOf('|');
  return { currency: reply.slice(0, bar) as Currency, amount: Number(reply.slice(bar + 1)) };
}

/**
 * The billing store shared by every instance through Redis: each operation is one Lua
 * script (EVALSHA, loaded on first use), so reservations on many instances cannot
 * overspend and a settlement is applied once. Keys live under `<prefix>bill:`.
 */
export function createRedisBillingStore(redis: RedisClient, prefix: string): BillingStore {
  const shas = new Map<string, string>();
  const queueKey = `${prefix}bill:ledgerq`;
  const lockKey = `${queueKey}:lock`;
  const base = (accountId: string) => `${prefix}bill:${accountId}:`;

  async function run(script: string, keys: string[], args: string[]): Promise<unknown> {
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
  }

  return {
    backend: 'redis',
    async reserve(input): Promise<ReserveResult> {
      const args = [
        base(input.accountId),
        input.requestId,
        String(input.now),
        String(input.expiresAt),
        String(input.counterTtlMs),
        String(input.report.length),
        ...input.report,
        String(input.candidates.length),
      ];
      for (const c of input.candidates) args.push(c.currency, String(c.amount), c.counter ? prefix + c.counter : '', String(c.limit));
      const reply = (await run(RESERVE, [], args)) as (number | string)[];
      const status = STATUS[Number(reply[0])];
      if (status === 'missing') return { status };
      const balances = reply.slice(2).map(Number);
      if (status === 'insufficient') return { status, balances };
      return { status: status as 'held' | 'limit', index: Number(reply[1]), balances };
    },
    async settle(input) {
      const reply = await run(
        SETTLE,
        [],
        [
          base(input.accountId),
          input.requestId,
          input.currency,
          String(input.amount),
          input.counter ? prefix + input.counter : '',
          String(input.counterTtlMs),
          String(input.settledTtlMs),
          queueKey,
          JSON.stringify(input.rows),
        ],
      );
      return parseCharged(reply) as Charged;
    },
    async hasHold(accountId, requestId) {
      return (await redis.send('HEXISTS', [`${base(accountId)}hreq`, requestId])) === 1;
    },
    async release(accountId, requestId, settledTtlMs) {
      return parseCharged(await run(RELEASE, [], [base(accountId), requestId, String(settledTtlMs)]));
    },
    async initBalances(accountId, values) {
      const args = [base(accountId)];
      for (const [currency, v] of Object.entries(values)) args.push(currency, String(v ?? 0));
      await run(INIT_BALANCES, [], args);
    },
    async initCounter(counter, spent, ttlMs) {
      const args = [prefix + counter, String(spent)];
      if (ttlMs > 0) args.push('PX', String(Math.ceil(ttlMs)));
      await redis.send('SET', [...args, 'NX']);
    },
    async addIfMirrored(accountId, currency, amount, requestId) {
      const reply = await run(
        ADD_IF_MIRRORED,
        [`${base(accountId)}bal:${currency}`, `${base(accountId)}applied:${requestId}`],
        [String(amount), String(APPLIED_TTL_MS)],
      );
      return Number(reply) === 1;
    },
    async undoAdd(accountId, currency, amount, requestId) {
      await run(UNDO_ADD, [`${base(accountId)}bal:${currency}`, `${base(accountId)}applied:${requestId}`], [String(amount)]);
    },
    async balances(accountId, currencies) {
      const reply = (await redis.send(
        'MGET',
        currencies.map((c) => `${base(accountId)}bal:${c}`),
      )) as (string | null)[];
      return reply.map((v) => (v === null ? null : Number(v)));
    },
    async takeBatch(max) {
      const token = randomUUID();
      if ((await redis.send('SET', [lockKey, token, 'NX', 'PX', String(QUEUE_LOCK_MS)])) !== 'OK') return null;
      const items = (await redis.send('LRANGE', [queueKey, '0', String(max - 1)])) as string[];
      const unlock = async () => void (await run(UNLOCK, [lockKey], [token]));
      if (items.length === 0) {
        await unlock();
        return null;
      }
      const rows: LedgerRow[] = [];
      for (const item of items) for (const row of JSON.parse(item) as LedgerRow[]) rows.push(row);
      return {
        rows,
        async ack() {
          await run(ACK_BATCH, [queueKey, lockKey], [token, String(items.length)]);
        },
        abandon: unlock,
      };
    },
    async queued() {
      return Number(await redis.send('LLEN', [queueKey]));
    },
  };
}
