import { afterAll, beforeAll, expect, test } from 'bun:test';
import { LedgerOutbox } from '../../src/billing/ledger-outbox';
import { PendingCharges, type PendingItem } from '../../src/billing/pending-charges';
import { createRedisBillingStore } from '../../src/billing/redis-store';
import type { BillingStore } from '../../src/billing/store';
import { createRedisStore } from '../../src/kv/redis';
import type { KeyValueStore } from '../../src/kv/store';
import { sharedOrOwnRedis, type OwnRedis } from '../helpers/redis-server';

// Deferred settlements are subtracted from the balances svc reports until Redis holds them.
// Which ones a read holds is decided by the order commands are written on the connection,
// not by the order their replies are handled. On REDIS_URL (a single Redis or a cluster)
// when set, else on a Redis of its own.
const PREFIX = `pending-order${Date.now()}:`;
let redis: OwnRedis | null = null;
let kv: KeyValueStore;
let outbox: LedgerOutbox;
let store: BillingStore & { close(): void };

beforeAll(async () => {
  const { url, own } = await sharedOrOwnRedis();
  redis = own;
  kv = await createRedisStore(url, { prefix: PREFIX });
  outbox = new LedgerOutbox();
  // Groups go only when a flush sends them, so the test decides when a group is written.
  store = createRedisBillingStore(kv.redis!, PREFIX, outbox, { settleBatchMs: 60_000, settleBatchMax: 1_000 });
});

afterAll(async () => {
  store.close();
  outbox.close();
  await kv.close();
  await redis?.dispose();
});

let requests = 0;
async function chargeFive(accountId: string) {
  const now = Date.now();
  for (let i = 0; i < 5; i++) {
    const requestId = `${accountId}-${++requests}`;
    const held = await store.reserve({
      accountId,
      requestId,
      candidates: [{ currency: 'USD', amount: 10, counter: '', limit: 0 }],
      report: ['USD'],
      now,
      expiresAt: now + 60_000,
      counterTtlMs: 0,
    });
    expect(held.status).toBe('held');
    const charge = {
      accountId,
      apiKeyId: null,
      requestId,
      currency: 'USD' as const,
      modelId: null,
      lines: [],
      amount: 10,
      promptTokens: 0,
      completionTokens: 0,
      executionMs: 1,
      at: now,
    };
    store.settle({
      accountId,
      requestId,
      currency: 'USD',
      amount: 10,
      counter: '',
      counterTtlMs: 0,
      charge,
      settledTtlMs: 60_000,
      deferrable: true,
    });
  }
}

/**
 * A new account with 1,000 and five charges of 10 landed: the node that serves its slot knows
 * the scripts before a test writes a group (a first EVALSHA answered NOSCRIPT is sent again as
 * EVAL, behind the read the test writes after it, which PendingCharges says it cannot order).
 */
async function warmAccount(name: string) {
  const accountId = `${name}-${Date.now()}`;
  await store.initBalances(accountId, { USD: 1_000, DIEM: 0 });
  await chargeFive(accountId);
  await store.takeBatch(100);
  expect(await store.balances(accountId, ['USD'])).toEqual([950]);
  return accountId;
}

test('a balance read written right after a group of settlements holds it once, whichever reply is handled first', async () => {
  const accountId = await warmAccount('acct');
  await chargeFive(accountId);
  // Not landed: the mirror still has 950, the read subtracts the five charges.
  expect(await store.balances(accountId, ['USD'])).toEqual([900]);
  // The group is written now, the read right after it on the same connection: Redis answers
  // the read with the charges applied. Its reply is handled before the group's (fewer promise
  // hops), which used to subtract them a second time (850).
  const landing = store.takeBatch(100);
  const read = store.balances(accountId, ['USD']);
  expect(await read).toEqual([900]);
  await landing;
  expect(await store.balances(accountId, ['USD'])).toEqual([900]);
});

test('an admission written right after a group reports the balance once charged', async () => {
  const accountId = await warmAccount('acct-b');
  await chargeFive(accountId);
  const now = Date.now();
  const landing = store.takeBatch(100);
  const admitted = await store.reserve({
    accountId,
    requestId: `${accountId}-next`,
    candidates: [{ currency: 'USD', amount: 10, counter: '', limit: 0 }],
    report: ['USD'],
    now,
    expiresAt: now + 60_000,
    counterTtlMs: 0,
  });
  await landing;
  expect(admitted.status).toBe('held');
  expect(admitted.status === 'held' && admitted.balances).toEqual([900]);
});

const item = (amount: number, window: string | null = null, tokens = 0): PendingItem => ({ currency: 'USD', amount, window, tokens });

test('PendingCharges: a read subtracts what is unsent and what was sent after it, never what was sent before it', () => {
  const pending = new PendingCharges();
  const first = [item(10, 'w', -5), item(20)];
  for (const i of first) pending.add('a', i);
  const before = pending.stamp();
  const sentFirst = pending.sent('a', first);
  const afterFirst = pending.stamp();
  const second = [item(7, 'w', -3)];
  for (const i of second) pending.add('a', i);
  // A read written before the group: both groups are missing from it.
  expect(pending.less('a', 'USD', 1_000, before)).toBe(963);
  expect(pending.tokens('w', before)).toBe(-8);
  // A read written after the first group: only the unsent one.
  expect(pending.less('a', 'USD', 1_000, afterFirst)).toBe(993);
  expect(pending.tokens('w', afterFirst)).toBe(-3);
  pending.landed('a', sentFirst);
  expect(pending.less('a', 'USD', 1_000, pending.stamp())).toBe(993);
  const sentSecond = pending.sent('a', second);
  expect(pending.less('a', 'USD', 1_000, pending.stamp())).toBe(1_000);
  pending.landed('a', sentSecond);
  expect(pending.has('a')).toBe(false);
  expect(pending.tokens('w', 0)).toBe(0);
});
