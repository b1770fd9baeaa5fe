import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq, and } from 'drizzle-orm';
import { balances } from '../../src/db/schema';
import { createRedisStore } from '../../src/kv/redis';
import type { Storage } from '../../src/db/database';
import type { KeyValueStore } from '../../src/kv/store';
import { startUpstream, type FixtureUpstream } from '../fixtures/openai-upstream';
import { BACKENDS } from '../helpers/backends';
import { backendPair, charges, closeInstance, COST, instance, newAccount, type MeterInstance, openMeterSuite } from './meter-helpers';

let up: FixtureUpstream;
beforeAll(() => {
  up = startUpstream('concurrency');
});
afterAll(() => up.close());

async function dbBalance(storage: Storage, accountId: string) {
  const [row] = await storage.db
    .select()
    .from(balances)
    .where(and(eq(balances.accountId, accountId), eq(balances.currency, 'USD')));
  return row?.amountMicros ?? 0;
}

/** Fires `n` chats spread over the instances at once; returns the statuses and 402 messages. */
async function burst(instances: MeterInstance[], key: string, n: number) {
  const responses = await Promise.all(Array.from({ length: n }, (_, i) => instances[i % instances.length]!.chat(key)));
  const statuses = responses.map((r) => r.status);
  const errors = await Promise.all(responses.filter((r) => r.status !== 200).map(async (r) => (await r.json()).error as string));
  await Promise.all(responses.filter((r) => r.status === 200).map((r) => r.arrayBuffer()));
  return { ok: statuses.filter((s) => s === 200).length, refused: statuses.filter((s) => s === 402).length, errors };
}

describe.each(BACKENDS)('concurrent requests on $name', (backend) => {
  let storage: Storage;
  let kv: KeyValueStore;
  let one: MeterInstance;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ storage, kv, m: one, close } = await openMeterSuite(backend, { upstreamUrl: up.url }));
  });
  afterAll(() => close());

  test('200 requests against a balance for 50: 50 succeed, 150 get 402, the ledger holds the 50 charges', async () => {
    const { accountId, secret } = await newAccount(storage);
    expect(await one.meter.credit({ accountId, currency: 'USD', amountMicros: 50 * COST, requestId: `c-${accountId}` })).toBe(true);
    const result = await burst([one], secret, 200);
    expect(result).toMatchObject({ ok: 50, refused: 150 });
    expect(new Set(result.errors)).toEqual(new Set(['Insufficient USD or Diem balance to complete request.']));
    expect((await one.meter.balances(accountId)).USD).toBe(0);
    await one.meter.flush();
    const rows = await charges(storage, accountId);
    expect(new Set(rows.map((r) => r.requestId)).size).toBe(50);
    expect(rows.reduce((s, r) => s + r.amountMicros, 0)).toBe(-50 * COST);
    expect(await dbBalance(storage, accountId)).toBe(0);
  }, 30_000);

  test("200 requests against a key's USD limit for 50: 50 succeed, 150 get 402", async () => {
    const { accountId, secret } = await newAccount(storage, { usd: 50 * COST, limitPeriod: 'LIFETIME' });
    await one.meter.credit({ accountId, currency: 'USD', amountMicros: 1_000_000, requestId: `c-${accountId}` });
    const result = await burst([one], secret, 200);
    expect(result).toMatchObject({ ok: 50, refused: 150 });
    expect(new Set(result.errors)).toEqual(new Set(['API key USD spend limit exceeded']));
    expect((await one.meter.balances(accountId)).USD).toBe(1_000_000 - 50 * COST);
    await one.meter.flush();
    expect((await charges(storage, accountId)).reduce((s, r) => s + r.amountMicros, 0)).toBe(-50 * COST);
  }, 30_000);
});

describe.each(BACKENDS.filter((b) => b.name === 'external'))('three instances sharing Postgres and Redis', (backend) => {
  let storage: Storage;
  let kv: KeyValueStore;
  const instances: MeterInstance[] = [];
  const extraKvs: KeyValueStore[] = [];

  beforeAll(async () => {
    ({ storage, kv } = await backendPair(backend));
    instances.push(await instance({ storage, kv, upstreamUrl: up.url }));
    for (let i = 0; i < 2; i++) {
      const own = await createRedisStore(process.env.REDIS_URL as string, { prefix: kv.prefix });
      extraKvs.push(own);
      instances.push(await instance({ storage, kv: own, upstreamUrl: up.url }));
    }
  });
  afterAll(async () => {
    for (const i of instances) await closeInstance(i);
    for (const k of extraKvs) await k.close();
    await kv.close();
    await storage.close();
  });

  test('balance and key limit: no overspend across instances, each charge written once', async () => {
    const { accountId, secret } = await newAccount(storage);
    await instances[1]!.meter.credit({ accountId, currency: 'USD', amountMicros: 50 * COST, requestId: `c-${accountId}` });
    expect(await burst(instances, secret, 200)).toMatchObject({ ok: 50, refused: 150 });

    const limited = await newAccount(storage, { usd: 50 * COST, limitPeriod: 'MONTH' });
    await instances[2]!.meter.credit({
      accountId: limited.accountId,
      currency: 'USD',
      amountMicros: 1_000_000,
      requestId: `c-${limited.accountId}`,
    });
    expect(await burst(instances, limited.secret, 200)).toMatchObject({ ok: 50, refused: 150 });

    for (const i of instances) await i.meter.flush();
    const rows = await charges(storage, accountId);
    expect(new Set(rows.map((r) => r.requestId)).size).toBe(50);
    expect(rows.reduce((s, r) => s + r.amountMicros, 0)).toBe(-50 * COST);
    expect(await dbBalance(storage, accountId)).toBe(0);
    expect(await dbBalance(storage, limited.accountId)).toBe(1_000_000 - 50 * COST);
    for (const i of instances) expect((await i.meter.balances(accountId)).USD).toBe(0);
  }, 60_000);
});
