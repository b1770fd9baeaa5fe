import { afterAll, beforeAll, expect, test } from 'bun:test';
import type { Currency } from '../../src/billing/credit';
import { LedgerOutbox } from '../../src/billing/ledger-outbox';
import { SETTLE } from '../../src/billing/redis-scripts';
import { accountKeys, holdIndexKey, settleCall } from '../../src/billing/redis-calls';
import { createRedisBillingStore } from '../../src/billing/redis-store';
import type { BillingStore, HoldCandidate, ReserveInput } from '../../src/billing/store';
import { createRedisStore } from '../../src/kv/redis';
import { runScript } from '../../src/kv/scripts';
import type { KeyValueStore } from '../../src/kv/store';
import { rateKey } from '../../src/limits/redis-scripts';
import { WINDOW_MS } from '../../src/limits/store';
import { sharedOrOwnRedis, type OwnRedis } from '../helpers/redis-server';

// The edges of the Redis billing scripts that the reads they share or skip must not move: the
// account's index marker standing in for its earliest hold, mirrors and counters read together
// but reported missing only when reached, key limits, the reservation's rate count, and a
// replayed settlement. On REDIS_URL (a single Redis or a cluster) when set, else on a Redis of
// its own.
const PREFIX = `scripts${Date.now()}:`;
let redis: OwnRedis | null = null;
let kv: KeyValueStore;
let outbox: LedgerOutbox;
let store: BillingStore & { close(): void };
let n = 0;

beforeAll(async () => {
  const { url, own } = await sharedOrOwnRedis();
  redis = own;
  kv = await createRedisStore(url, { prefix: PREFIX });
  outbox = new LedgerOutbox();
  store = createRedisBillingStore(kv.redis!, PREFIX, outbox);
});

afterAll(async () => {
  store.close();
  outbox.close();
  await kv.close();
  await redis?.dispose();
});

const send = (command: string, args: string[]) => kv.redis!.send(command, args);
const usd = (amount: number): HoldCandidate => ({ currency: 'USD', amount, counter: '', limit: 0 });

/** A new account with these mirrors; its key names. */
async function account(balances: Partial<Record<Currency, number>>) {
  const accountId = `acct-${++n}`;
  await store.initBalances(accountId, balances);
  return { accountId, k: accountKeys(PREFIX, accountId) };
}

const hold = (
  accountId: string,
  requestId: string,
  candidates: HoldCandidate[],
  now: number,
  expiresAt: number,
  extra: Partial<ReserveInput> = {},
) => store.reserve({ accountId, requestId, candidates, report: ['USD', 'DIEM'], now, expiresAt, counterTtlMs: 0, ...extra });

const settlement = (accountId: string, requestId: string, amount: number) => ({
  accountId,
  requestId,
  currency: 'USD' as const,
  amount,
  counter: '',
  counterTtlMs: 0,
  charge: { lines: [] } as never,
  settledTtlMs: 60_000,
});

test('a hold that expires before the index marker moves the marker, and the next reservation after its expiry drops it', async () => {
  const { accountId, k } = await account({ USD: 1_000, DIEM: 0 });
  const t0 = Date.now();
  expect((await hold(accountId, 'long', [usd(600)], t0, t0 + 60_000)).status).toBe('held');
  expect(await send('GET', [k.ix])).toBe(String(t0 + 60_000));
  // Later than the marker: the marker (and so the index) stays.
  expect((await hold(accountId, 'later', [usd(100)], t0, t0 + 90_000)).status).toBe('held');
  expect(await send('GET', [k.ix])).toBe(String(t0 + 60_000));
  // Earlier than the marker: the marker follows it, and the index is asked to.
  expect((await hold(accountId, 'short', [usd(200)], t0 + 10, t0 + 100)).status).toBe('held');
  expect(await send('GET', [k.ix])).toBe(String(t0 + 100));
  const started = Date.now();
  while (Number(await send('ZSCORE', [holdIndexKey(PREFIX), accountId])) !== t0 + 100 && Date.now() - started < 2_000) await Bun.sleep(10);
  expect(Number(await send('ZSCORE', [holdIndexKey(PREFIX), accountId]))).toBe(t0 + 100);
  // Before 'short' expires the balance is held; once it has, the next reservation frees it first.
  expect((await hold(accountId, 'early', [usd(200)], t0 + 99, t0 + 60_000)).status).toBe('insufficient');
  expect((await hold(accountId, 'after', [usd(200)], t0 + 100, t0 + 60_000)).status).toBe('held');
  expect(((await send('HKEYS', [k.hreq])) as string[]).sort()).toEqual(['after', 'later', 'long']);
  expect(await send('HGET', [k.hsum, 'USD'])).toBe('900');
  // The marker was due: it is the earliest hold left.
  expect(await send('GET', [k.ix])).toBe(String(t0 + 60_000));
});

test('a lost marker makes the next reservation drop expired holds and write the marker again', async () => {
  const { accountId, k } = await account({ USD: 1_000, DIEM: 0 });
  const t0 = Date.now();
  await hold(accountId, 'a', [usd(900)], t0, t0 + 50);
  await send('DEL', [k.ix]);
  expect((await hold(accountId, 'b', [usd(900)], t0 + 50, t0 + 5_000)).status).toBe('held');
  expect(await send('HKEYS', [k.hreq])).toEqual(['b']);
  expect(await send('GET', [k.ix])).toBe(String(t0 + 5_000));
});

test('mirrors and counters are reported missing only when reached, after the report mirrors', async () => {
  const { accountId, k } = await account({ USD: 1_000, DIEM: 500 });
  const diem: HoldCandidate = { currency: 'DIEM', amount: 100, counter: '', limit: 0 };
  const credits: HoldCandidate = { currency: 'BUNDLED_CREDITS', amount: 100, counter: '', limit: 0 };
  const limited: HoldCandidate = { currency: 'USD', amount: 100, counter: `kc:{${accountId}}:gone`, limit: 1_000 };
  const t0 = Date.now();
  // The first candidate (a report mirror) fits: the absent BUNDLED_CREDITS mirror and counter behind it are never reached.
  const first = await hold(accountId, 'r1', [diem, credits, limited], t0, t0 + 60_000);
  expect(first).toMatchObject({ status: 'held', index: 0, balances: [1_000, 500] });
  expect((await hold(accountId, 'r2', [credits, diem], t0, t0 + 60_000)).status).toBe('missing');
  expect((await hold(accountId, 'r3', [limited], t0, t0 + 60_000)).status).toBe('missing');
  await send('DEL', [k.bal('DIEM')]);
  expect((await hold(accountId, 'r4', [usd(1)], t0, t0 + 60_000)).status).toBe('missing');
  expect(await send('HKEYS', [k.hreq])).toEqual(['r1']);
});

test('key limits: a candidate refused by its limit is passed over, and the holds against a limit count until settled', async () => {
  const { accountId, k } = await account({ USD: 10_000, DIEM: 10_000 });
  const counter = (c: string) => `kc:{${accountId}}:${c}`;
  await store.initCounter(counter('diem'), 250, 0);
  await store.initCounter(counter('usd'), 0, 0);
  const diem: HoldCandidate = { currency: 'DIEM', amount: 100, counter: counter('diem'), limit: 400 };
  const cash: HoldCandidate = { currency: 'USD', amount: 100, counter: counter('usd'), limit: 150 };
  const t0 = Date.now();
  expect(await hold(accountId, 'a', [diem, cash], t0, t0 + 60_000)).toMatchObject({ status: 'held', index: 0 });
  // 250 spent + 100 held + 100 > 400: DIEM is refused by its limit, USD holds.
  expect(await hold(accountId, 'b', [diem, cash], t0, t0 + 60_000)).toMatchObject({ status: 'held', index: 1 });
  expect(await hold(accountId, 'c', [diem, cash], t0, t0 + 60_000)).toMatchObject({ status: 'limit', index: 0 });
  expect(await send('HGET', [k.hsum, `k:${PREFIX}${counter('diem')}`])).toBe('100');
  await store.release(accountId, 'a', 60_000);
  expect(await send('HEXISTS', [k.hsum, `k:${PREFIX}${counter('diem')}`])).toBe(0);
  expect(await hold(accountId, 'd', [diem, cash], t0, t0 + 60_000)).toMatchObject({ status: 'held', index: 0 });
});

test("a reservation's rate count: requests and tokens kept with the hold, the window's TTL set by its first request only", async () => {
  const { accountId } = await account({ USD: 1_000, DIEM: 0 });
  const key = { account: accountId, scope: 'text:XS' };
  const rate = (rpm: number) => ({ key, rpm, tokens: { limit: 1_000, reserve: 300 } });
  const t0 = Date.now();
  const first = await hold(accountId, 'a', [usd(100)], t0, t0 + 60_000, { rate: rate(3) });
  const name = rateKey(PREFIX, key, first.rate!.window);
  expect(first.rate).toMatchObject({ refused: null, requests: 1, tokens: 300 });
  expect(await send('HMGET', [name, 'r', 't'])).toEqual(['1', '300']);
  await send('PEXPIRE', [name, String(WINDOW_MS + 500)]);
  // Refused by its balance: counted, its tokens given back.
  expect(await hold(accountId, 'b', [usd(5_000)], t0, t0 + 60_000, { rate: rate(3) })).toMatchObject({
    status: 'insufficient',
    rate: { requests: 2, tokens: 600 },
  });
  expect(await send('HMGET', [name, 'r', 't'])).toEqual(['2', '300']);
  expect(Number(await send('PTTL', [name]))).toBeLessThanOrEqual(WINDOW_MS + 500);
  // Refused by the rate limit: nothing counted, no hold.
  expect(await hold(accountId, 'c', [usd(100)], t0, t0 + 60_000, { rate: rate(2) })).toMatchObject({
    status: 'rated',
    rate: { refused: 'RPM' },
  });
  expect(await send('HMGET', [name, 'r', 't'])).toEqual(['2', '300']);
});

test('a replayed settlement (onlyIfHeld) charges the mirror only while its hold is there, and only once', async () => {
  const { accountId, k } = await account({ USD: 1_000, DIEM: 0 });
  const t0 = Date.now();
  const replay = (requestId: string, amount: number) => {
    const { keys, args } = settleCall(PREFIX, k, [settlement(accountId, requestId, amount)], true, null);
    return runScript(kv.redis!, SETTLE, keys, args);
  };
  await hold(accountId, 'held', [usd(300)], t0, t0 + 60_000);
  expect(await replay('held', 200)).toEqual([1, 'USD|200']);
  expect(await send('GET', [k.bal('USD')])).toBe('800');
  expect(await send('HGET', [k.hsum, 'USD'])).toBe('0');
  expect(await send('ZCARD', [k.hexp])).toBe(0);
  expect(await replay('held', 200)).toEqual([0, 'USD|200']);
  // No hold (Redis lost it): marked settled, the mirror left to the database's rebuild.
  expect(await replay('lost', 200)).toEqual([1, 'USD|200']);
  expect(await send('GET', [k.bal('USD')])).toBe('800');
  // Not a replay: charged all the same, once.
  expect(await store.settle(settlement(accountId, 'plain', 50))).toEqual({ currency: 'USD', amount: 50 });
  expect(await store.settle(settlement(accountId, 'plain', 50))).toEqual({ currency: 'USD', amount: 50 });
  expect(await send('GET', [k.bal('USD')])).toBe('750');
  // A missing mirror is not created by a charge.
  await send('DEL', [k.bal('USD')]);
  await store.settle(settlement(accountId, 'gone', 50));
  expect(await send('EXISTS', [k.bal('USD')])).toBe(0);
});

test('settlements of one account in one SETTLE call: each charged once, holds and key-limit holds dropped, one result each', async () => {
  const { accountId, k } = await account({ USD: 10_000, DIEM: 0 });
  const t0 = Date.now();
  const counter = `kc:{${accountId}}:k:DAY:0:usd`;
  await send('SET', [PREFIX + counter, '0']);
  const limited = { ...usd(1_000), counter, limit: 5_000 };
  await hold(accountId, 'b1', [usd(1_000)], t0, t0 + 60_000);
  await hold(accountId, 'b2', [limited], t0, t0 + 60_000);
  await hold(accountId, 'b3', [usd(1_000)], t0, t0 + 60_000);
  expect(await send('HGET', [k.hsum, 'USD'])).toBe('3000');
  expect(await send('HGET', [k.hsum, `k:${PREFIX}${counter}`])).toBe('1000');
  const withCounter = { ...settlement(accountId, 'b2', 400), counter, counterTtlMs: 60_000 };
  // b1 twice in the batch (the second is the first's outcome), b3 settled earlier on its own.
  expect(await store.settle(settlement(accountId, 'b3', 300))).toEqual({ currency: 'USD', amount: 300 });
  const { keys, args } = settleCall(
    PREFIX,
    k,
    [settlement(accountId, 'b1', 100), withCounter, settlement(accountId, 'b1', 999), settlement(accountId, 'b3', 777)],
    false,
    null,
  );
  expect(await runScript(kv.redis!, SETTLE, keys, args)).toEqual([1, 'USD|100', 1, 'USD|400', 0, 'USD|100', 0, 'USD|300']);
  expect(await send('GET', [k.bal('USD')])).toBe(String(10_000 - 100 - 400 - 300));
  expect(await send('HGET', [k.hsum, 'USD'])).toBe('0');
  expect(await send('HEXISTS', [k.hsum, `k:${PREFIX}${counter}`])).toBe(0);
  expect(await send('HLEN', [k.hreq])).toBe(0);
  expect(await send('ZCARD', [k.hexp])).toBe(0);
  expect(await send('GET', [PREFIX + counter])).toBe('400');
  // Rows without line items: no unwritten marks.
  expect(await send('EXISTS', [k.unwritten])).toBe(0);
});
