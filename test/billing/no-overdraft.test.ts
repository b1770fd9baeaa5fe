import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { and, eq } from 'drizzle-orm';
import type { Storage } from '../../src/db/database';
import { balances } from '../../src/db/schema';
import { startUpstream, type FixtureUpstream } from '../fixtures/openai-upstream';
import { BACKENDS } from '../helpers/backends';
import { charges, COST, newAccount, openMeterSuite, type MeterInstance } from './meter-helpers';

let up: FixtureUpstream;
beforeAll(() => {
  up = startUpstream('no-overdraft');
});
afterAll(() => up.close());

async function dbBalance(storage: Storage, accountId: string) {
  const [row] = await storage.db
    .select()
    .from(balances)
    .where(and(eq(balances.accountId, accountId), eq(balances.currency, 'USD')));
  return row?.amountMicros ?? 0;
}

/** Request fields that multiply or escape the estimate: choices, a limit the upstream ignores, no limit, a stream. */
const SHAPES: Record<string, unknown>[] = [
  { n: 8 },
  { n: 3, stream: true, stream_options: { include_usage: true } },
  { max_tokens: 0 },
  { max_tokens: null, n: 2 },
  { stream: true },
  {},
];

describe.each(BACKENDS)('no request field takes a balance below zero on $name', (backend) => {
  let storage: Storage;
  let m: MeterInstance;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ storage, m, close } = await openMeterSuite(backend, { upstreamUrl: up.url }));
  });
  afterAll(() => close());

  test('n is reserved for every choice: one request worth of balance and n: 2 is a 402, nothing charged', async () => {
    up.set({});
    const { accountId, secret } = await newAccount(storage);
    await m.meter.credit({ accountId, currency: 'USD', amountMicros: COST, requestId: `c-${accountId}` });
    const res = await m.chat(secret, { n: 2 });
    expect(res.status).toBe(402);
    // 10 prompt + 2 choices x 5 tokens x 2 µUSD = 30 µUSD, reserved and charged exactly.
    await m.meter.credit({ accountId, currency: 'USD', amountMicros: 10, requestId: `c2-${accountId}` });
    const ok = await m.chat(secret, { n: 2 });
    expect(ok.status).toBe(200);
    expect((await ok.json()).choices).toHaveLength(2);
    expect((await m.meter.balances(accountId)).USD).toBe(0);
  });

  test("n above the model's bound (8 by default) is a 400 naming n, and so is n: 1e20; nothing goes upstream", async () => {
    const { accountId, secret } = await newAccount(storage);
    await m.meter.credit({ accountId, currency: 'USD', amountMicros: 1_000_000, requestId: `c-${accountId}` });
    const before = up.requests.length;
    for (const n of [9, 128, 1e20]) {
      const res = await m.chat(secret, { n });
      expect(res.status).toBe(400);
      const body = await res.json();
      expect(body.error).toMatch(/^(Invalid body parameters: )?n: /);
    }
    expect(up.requests.length).toBe(before);
    expect((await m.meter.balances(accountId)).USD).toBe(1_000_000);
  });

  test('300 concurrent requests of every shape, from an upstream that ignores max_tokens: balance and key spend never pass zero or the limit', async () => {
    // 40 tokens per choice whatever the request's limit: each request would cost more than it reserved.
    up.set({ tokens: Array.from({ length: 40 }, (_, i) => ` t${i}`) });
    const credit = 5_000;
    const { accountId, secret } = await newAccount(storage);
    await m.meter.credit({ accountId, currency: 'USD', amountMicros: credit, requestId: `c-${accountId}` });
    const limit = 2_000;
    const limited = await newAccount(storage, { usd: limit, limitPeriod: 'LIFETIME' });
    await m.meter.credit({ accountId: limited.accountId, currency: 'USD', amountMicros: 1_000_000, requestId: `c-${limited.accountId}` });

    const fire = (key: string) =>
      Promise.all(
        Array.from({ length: 150 }, async (_, i) => {
          const res = await m.chat(key, SHAPES[i % SHAPES.length]);
          await res.arrayBuffer();
          return res.status;
        }),
      );
    const [a, b] = await Promise.all([fire(secret), fire(limited.secret)]);
    const statuses = new Set([...a, ...b]);
    expect([...statuses].every((s) => s === 200 || s === 402)).toBe(true);
    expect(a.filter((s) => s === 200).length).toBeGreaterThan(0);
    expect(a.filter((s) => s === 402).length).toBeGreaterThan(0);

    await m.meter.flush();
    const live = (await m.meter.balances(accountId)).USD!;
    expect(live).toBeGreaterThanOrEqual(0);
    expect(await dbBalance(storage, accountId)).toBe(live);
    const charged = (await charges(storage, accountId)).reduce((s, r) => s - r.amountMicros, 0);
    expect(charged).toBe(credit - live);

    const spent = (await charges(storage, limited.accountId)).reduce((s, r) => s - r.amountMicros, 0);
    expect(spent).toBeGreaterThan(0);
    expect(spent).toBeLessThanOrEqual(limit);
    expect(await dbBalance(storage, limited.accountId)).toBe(1_000_000 - spent);
    up.set({});
  }, 60_000);
});
