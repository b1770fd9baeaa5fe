import { afterAll, beforeAll, expect, test } from 'bun:test';
import { startHoldSweeper } from '../../src/billing/hold-sweeper';
import { LedgerOutbox } from '../../src/billing/ledger-outbox';
import { REINDEX_HOLDS } from '../../src/billing/redis-scripts';
import { accountKeys, holdIndexKey } from '../../src/billing/redis-calls';
import { createRedisBillingStore } from '../../src/billing/redis-store';
import type { RedisLink } from '../../src/kv/redis-link';
import { initBalanceMirror } from '../../src/billing/mirror-init';
import { createRedisStore } from '../../src/kv/redis';
import type { KeyValueStore } from '../../src/kv/store';
import type { Storage } from '../../src/db/database';
import { startUpstream, type FixtureUpstream } from '../fixtures/openai-upstream';
import { BACKENDS } from '../helpers/backends';
import { sharedOrOwnRedis, type OwnRedis } from '../helpers/redis-server';
import { closeInstance, instance, newAccount, type MeterInstance } from './meter-helpers';

// Holds of an instance that died mid-request are freed by the background sweep of another
// instance once they expire, without any request on the account. On REDIS_URL (a single
// Redis or, in CI's second pass, a cluster) when set, else on a Redis of its own on a free port.
const PREFIX = `sweep${Date.now()}:`;
let redis: OwnRedis | null = null;
let up: FixtureUpstream;
let storage: Storage;
let kv: KeyValueStore;
let crashed: MeterInstance;
let survivor: MeterInstance;

beforeAll(async () => {
  const { url, own } = await sharedOrOwnRedis();
  redis = own;
  up = startUpstream('sweep');
  storage = await BACKENDS.at(-1)!.storage();
  kv = await createRedisStore(url, { prefix: PREFIX });
  crashed = await instance({ storage, kv, upstreamUrl: up.url, billing: { holdTtlMs: 1_000, holdSweepIntervalMs: 60_000 } });
  survivor = await instance({ storage, kv, upstreamUrl: up.url, billing: { holdTtlMs: 1_000, holdSweepIntervalMs: 200 } });
});

afterAll(async () => {
  await closeInstance(crashed);
  await closeInstance(survivor);
  await kv.close();
  await storage.close();
  await up.close();
  await redis?.dispose();
});

/** A hold of 10 micro-USD for `requestId`, with no key-limit counter. */
const smallHold = (accountId: string, requestId: string, now: number, expiresAt: number) => ({
  accountId,
  requestId,
  candidates: [{ currency: 'USD' as const, amount: 10, counter: '', limit: 0 }],
  report: ['USD' as const, 'DIEM' as const],
  now,
  expiresAt,
  counterTtlMs: 0,
});

test('an expired hold of a dead instance is swept within the sweep period, with no request on its account', async () => {
  const { accountId } = await newAccount(storage);
  await survivor.meter.credit({ accountId, currency: 'USD', amountMicros: 1_000, requestId: `fund-${accountId}` });
  await initBalanceMirror(storage.db, crashed.meter.store, accountId);
  const reserve = (requestId: string, amount: number) =>
    crashed.meter.store.reserve({
      accountId,
      requestId,
      candidates: [{ currency: 'USD', amount, counter: '', limit: 0 }],
      report: ['USD', 'DIEM'],
      now: Date.now(),
      expiresAt: Date.now() + 1_000,
      counterTtlMs: 0,
    });
  // The "crashed" instance holds the whole balance and never settles.
  expect((await reserve('lost-request', 1_000)).status).toBe('held');
  expect((await reserve('next-request', 1)).status).toBe('insufficient');
  const k = accountKeys(PREFIX, accountId);
  const holds = async () => Number(await kv.redis!.send('HLEN', [k.hreq]));
  const indexed = async () => kv.redis!.send('ZSCORE', [holdIndexKey(PREFIX), accountId]);
  expect(await holds()).toBe(1);
  expect(await indexed()).not.toBeNull();
  // Expiry (1 s) plus at most one sweep period (200 ms) of the survivor, with slack for a loaded
  // machine. On a Cluster the index lives in another slot than the account, so the sweep clears
  // it with a command of its own after the account's holds: wait for both.
  const started = Date.now();
  while (((await holds()) > 0 || (await indexed()) !== null) && Date.now() - started < 5_000) await Bun.sleep(50);
  expect(await holds()).toBe(0);
  expect(Number(await kv.redis!.send('HGET', [k.hsum, 'USD']))).toBe(0);
  expect(await indexed()).toBeNull();
  expect((await reserve('next-request', 1_000)).status).toBe('held');
  // The sweep cleared the account's index marker, so its next hold indexes it again.
  expect(await indexed()).not.toBeNull();
});

test('a hold that is still live keeps its account in the index at its expiry', async () => {
  const { accountId } = await newAccount(storage);
  await survivor.meter.credit({ accountId, currency: 'USD', amountMicros: 1_000, requestId: `fund-${accountId}` });
  await initBalanceMirror(storage.db, crashed.meter.store, accountId);
  const now = Date.now();
  const hold = (requestId: string, expiresAt: number) => crashed.meter.store.reserve(smallHold(accountId, requestId, now, expiresAt));
  await hold('short', now + 300);
  await hold('long', now + 60_000);
  const k = accountKeys(PREFIX, accountId);
  const started = Date.now();
  while (Number(await kv.redis!.send('HLEN', [k.hreq])) > 1 && Date.now() - started < 5_000) await Bun.sleep(50);
  expect(await kv.redis!.send('HKEYS', [k.hreq])).toEqual(['long']);
  expect(Number(await kv.redis!.send('ZSCORE', [holdIndexKey(PREFIX), accountId]))).toBe(now + 60_000);
});

test.each([
  ['the same clock', 0],
  ['a clock 10 s behind', 10_000],
])('a hold taken between the two steps of a sweep, by an instance with %s, stays indexed', async (_name, behindMs) => {
  const prefix = `${PREFIX}race${behindMs}:`;
  const outbox = new LedgerOutbox();
  const store = createRedisBillingStore(kv.redis!, prefix, outbox);
  const accountId = 'race-account';
  await store.initBalances(accountId, { USD: 1_000, DIEM: 0 });
  const reserve = (requestId: string, now: number, expiresAt: number) => store.reserve(smallHold(accountId, requestId, now, expiresAt));
  const index = holdIndexKey(prefix);
  const t0 = Date.now();
  expect((await reserve('first', t0, t0 + 200)).status).toBe('held');
  // The index is written after the reply. On a Cluster its node may not hold the script yet,
  // and the retry after NOSCRIPT can land after a read sent right away.
  const started = Date.now();
  while (Number(await kv.redis!.send('ZSCORE', [index, accountId])) === 0 && Date.now() - started < 2_000) await Bun.sleep(10);
  expect(Number(await kv.redis!.send('ZSCORE', [index, accountId]))).toBe(t0 + 200);
  await Bun.sleep(250);
  // Between the sweep's two steps (the account's script, then the index's), another instance
  // takes a hold on the account; its own index write reaches Redis first.
  let late: number | null = null;
  const link: RedisLink = {
    ...kv.redis!,
    async send(command, args) {
      if (command === 'EVALSHA' && args[0] === REINDEX_HOLDS.sha && late === null) {
        late = Date.now() + 60_000;
        expect((await reserve('late', Date.now() - behindMs, late)).status).toBe('held');
      }
      return kv.redis!.send(command, args);
    },
  };
  const sweeper = startHoldSweeper({
    redis: link,
    prefix,
    intervalMs: 60_000,
    now: Date.now,
    log: { debug() {}, info() {}, warn() {}, error() {} },
  });
  try {
    expect(await sweeper.sweep()).toBe(1);
  } finally {
    sweeper.close();
    store.close?.();
    outbox.close();
  }
  expect(late).not.toBeNull();
  expect(await kv.redis!.send('HKEYS', [accountKeys(prefix, accountId).hreq])).toEqual(['late']);
  expect(Number(await kv.redis!.send('ZSCORE', [index, accountId]))).toBe(late!);
});
