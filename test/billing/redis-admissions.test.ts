import { afterAll, beforeAll, expect, test } from 'bun:test';
import { LedgerOutbox } from '../../src/billing/ledger-outbox';
import { accountKeys } from '../../src/billing/redis-calls';
import { createRedisBillingStore } from '../../src/billing/redis-store';
import type { BillingStore, HoldCandidate, ReserveInput } from '../../src/billing/store';
import type { RedisLink } from '../../src/kv/redis-link';
import { createRedisStore } from '../../src/kv/redis';
import type { KeyValueStore } from '../../src/kv/store';
import { sharedOrOwnRedis, type OwnRedis } from '../helpers/redis-server';

// Admissions of one account that arrive within one event-loop turn go to Redis as one script,
// decided in arrival order, each caller with its own answer. On REDIS_URL (a single Redis or a
// cluster) when set, else on a Redis of its own.
const PREFIX = `admissions${Date.now()}:`;
let redis: OwnRedis | null = null;
let kv: KeyValueStore;
let outbox: LedgerOutbox;
let store: BillingStore & { close(): void };
/** The admission scripts the store sent (by EVALSHA: a first EVAL after NOSCRIPT is the same call again), by their number of keys. */
const scripts: number[] = [];

beforeAll(async () => {
  const { url, own } = await sharedOrOwnRedis();
  redis = own;
  kv = await createRedisStore(url, { prefix: PREFIX });
  outbox = new LedgerOutbox();
  const link = kv.redis!;
  const counting = Object.create(link) as RedisLink;
  counting.send = (command, args) => {
    if (command === 'EVALSHA' && Number(args[1]) >= 6) scripts.push(Number(args[1]));
    return link.send(command, args);
  };
  store = createRedisBillingStore(counting, PREFIX, outbox);
});

afterAll(async () => {
  store.close();
  outbox.close();
  await kv.close();
  await redis?.dispose();
});

const usd = (amount: number): HoldCandidate => ({ currency: 'USD', amount, counter: '', limit: 0 });

test('admissions of one account in one turn: one script, decided in arrival order, each with its own answer', async () => {
  const a = `acct-a-${Date.now()}`;
  const b = `acct-b-${Date.now()}`;
  await store.initBalances(a, { USD: 1_000, DIEM: 0 });
  await store.initBalances(b, { USD: 1_000, DIEM: 0 });
  const now = Date.now();
  const key = { account: a, scope: 'text:XS' };
  const reserve = (accountId: string, requestId: string, amount: number, extra: Partial<ReserveInput> = {}) =>
    store.reserve({
      accountId,
      requestId,
      candidates: [usd(amount)],
      report: ['USD'],
      now,
      expiresAt: now + 60_000,
      counterTtlMs: 0,
      ...extra,
    });
  scripts.length = 0;
  // Account a: 300 each against 1,000 and 5 requests a minute; account b interleaved, alone.
  const rate = { key, rpm: 5, tokens: null };
  const replies = await Promise.all([
    reserve(a, 'a1', 300, { rate }),
    reserve(b, 'b1', 900),
    reserve(a, 'a2', 300, { rate }),
    reserve(a, 'a3', 300, { rate }),
    reserve(a, 'a4', 300, { rate }),
    reserve(a, 'a5', 50, { rate }),
    reserve(a, 'a6', 50, { rate }),
  ]);
  expect(replies.map((r) => r.status)).toEqual(['held', 'held', 'held', 'held', 'insufficient', 'held', 'rated']);
  // Each its own count of the window, as the headers show it.
  expect(replies.filter((_, i) => i !== 1).map((r) => r.rate?.requests)).toEqual([1, 2, 3, 4, 5, 5]);
  expect(replies[5]!.rate?.refused).toBeNull();
  expect(replies[6]!.rate?.refused).toBe('RPM');
  // Two scripts: account a's six in one (6 calls of 6 keys), account b's one alone.
  expect(scripts.sort((x, y) => x - y)).toEqual([6, 36]);
  const k = accountKeys(PREFIX, a);
  expect(((await kv.redis!.send('HKEYS', [k.hreq])) as string[]).sort()).toEqual(['a1', 'a2', 'a3', 'a5']);
  expect(await kv.redis!.send('HGET', [k.hsum, 'USD'])).toBe('950');
});

test('a group that fails in Redis fails each of its callers with its error', async () => {
  const a = `acct-c-${Date.now()}`;
  const now = Date.now();
  await store.initBalances(a, { USD: 1_000, DIEM: 0 });
  const k = accountKeys(PREFIX, a);
  // The hold records' hash of the wrong type: the script's first write fails.
  await kv.redis!.send('SET', [k.hreq, 'x']);
  const reserve = (requestId: string) =>
    store.reserve({ accountId: a, requestId, candidates: [usd(100)], report: ['USD'], now, expiresAt: now + 60_000, counterTtlMs: 0 });
  const settled = await Promise.allSettled([reserve('c1'), reserve('c2'), reserve('c3')]);
  expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected', 'rejected']);
  expect(String((settled[0] as PromiseRejectedResult).reason)).toContain('WRONGTYPE');
});

test('a group reads what its earlier calls changed: a hold dropped as expired, the key limit and the balance held', async () => {
  const a = `acct-d-${Date.now()}`;
  await store.initBalances(a, { USD: 1_000, DIEM: 0 });
  const counter = `bill:{${a}}:kc:test`; // in the account's slot, as the meter names them
  await kv.redis!.send('SET', [PREFIX + counter, '100']);
  const now = Date.now();
  const hold = (requestId: string, amount: number, at: number, expiresAt: number, limited = false) =>
    store.reserve({
      accountId: a,
      requestId,
      candidates: [limited ? { currency: 'USD', amount, counter, limit: 500 } : usd(amount)],
      report: ['USD'],
      now: at,
      expiresAt,
      counterTtlMs: 0,
    });
  // A hold of a call that never settled, expired by the time of the group.
  expect((await hold('old', 700, now - 10_000, now - 5_000)).status).toBe('held');
  scripts.length = 0;
  const replies = await Promise.all([
    hold('d1', 300, now, now + 60_000, true),
    hold('d2', 300, now, now + 60_000, true),
    hold('d3', 300, now, now + 60_000),
    hold('d4', 300, now, now + 60_000),
    hold('d5', 300, now, now + 60_000),
  ]);
  expect(scripts).toEqual([7 + 7 + 6 + 6 + 6]);
  // d1 frees the expired 700; the key limit (100 spent of 500) takes d1's 300 and refuses d2;
  // d3 and d4 take the rest of the balance, d5 finds 100 free.
  expect(replies.map((r) => r.status)).toEqual(['held', 'limit', 'held', 'held', 'insufficient']);
  expect(replies.map((r) => ('balances' in r ? r.balances : null))).toEqual([[1_000], [1_000], [1_000], [1_000], [1_000]]);
  const k = accountKeys(PREFIX, a);
  expect(await kv.redis!.send('HGET', [k.hsum, 'USD'])).toBe('900');
  expect(await kv.redis!.send('HGET', [k.hsum, `k:${PREFIX}${counter}`])).toBe('300');
  expect(((await kv.redis!.send('HKEYS', [k.hreq])) as string[]).sort()).toEqual(['d1', 'd3', 'd4']);
});

test('a hold that expires between two calls of a group is dropped by the later one, which sees the balance it freed', async () => {
  const a = `acct-e-${Date.now()}`;
  await store.initBalances(a, { USD: 1_000, DIEM: 0 });
  const now = Date.now();
  const hold = (requestId: string, amount: number, at: number, expiresAt: number) =>
    store.reserve({ accountId: a, requestId, candidates: [usd(amount)], report: ['USD'], now: at, expiresAt, counterTtlMs: 0 });
  expect((await hold('old', 700, now - 10_000, now + 1)).status).toBe('held');
  // e1 is decided before the old hold expires (it reads 700 held), e2 and e3 after it.
  const replies = await Promise.all([
    hold('e1', 200, now, now + 60_000),
    hold('e2', 500, now + 2, now + 60_000),
    hold('e3', 300, now + 2, now + 60_000),
  ]);
  expect(replies.map((r) => r.status)).toEqual(['held', 'held', 'held']);
  const k = accountKeys(PREFIX, a);
  expect(await kv.redis!.send('HGET', [k.hsum, 'USD'])).toBe('1000');
  expect(((await kv.redis!.send('HKEYS', [k.hreq])) as string[]).sort()).toEqual(['e1', 'e2', 'e3']);
});
