import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Storage } from '../../src/db/database';
import type { KeyValueStore } from '../../src/kv/store';
import { startUpstream, type FixtureUpstream } from '../fixtures/openai-upstream';
import { BACKENDS } from '../helpers/backends';
import {
  backendPair,
  callerOf,
  closeInstance,
  COST,
  instance,
  MODEL,
  newAccount,
  type MeterInstance,
  openMeterSuite,
} from './meter-helpers';

let up: FixtureUpstream;
beforeAll(() => {
  up = startUpstream('windows');
});
afterAll(() => up.close());

const HOLD_TTL_MS = 60_000;

describe.each(BACKENDS)('key limit windows and hold expiry on $name (injected clock)', (backend) => {
  const clock = { now: Date.UTC(2026, 0, 15, 12) };
  let storage: Storage;
  let kv: KeyValueStore;
  let m: MeterInstance;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ storage, kv, m, close } = await openMeterSuite(backend, {
      upstreamUrl: up.url,
      now: () => clock.now,
      billing: { holdTtlMs: HOLD_TTL_MS },
    }));
  });
  afterAll(() => close());

  async function status(secret: string, on = m) {
    const res = await on.chat(secret);
    const body = await res.json();
    return res.status === 200 ? 200 : `${res.status} ${body.error}`;
  }

  test('EPOCH: the next UTC day starts at zero; a new instance counts the day from the ledger', async () => {
    clock.now = Date.UTC(2026, 0, 15, 12);
    const { accountId, secret } = await newAccount(storage, { limitPeriod: 'EPOCH', usd: COST });
    await m.meter.credit({ accountId, currency: 'USD', amountMicros: 1_000_000, requestId: `f-${accountId}` });
    expect(await status(secret)).toBe(200);
    expect(await status(secret)).toBe('402 API key USD spend limit exceeded');
    await m.meter.flush();
    // A fresh KV namespace: the counters are rebuilt from today's ledger rows.
    const freshKv = await backend.kv({ now: () => clock.now });
    const other = await instance({ storage, kv: freshKv, upstreamUrl: up.url, now: () => clock.now });
    try {
      expect(await status(secret, other)).toBe('402 API key USD spend limit exceeded');
    } finally {
      await closeInstance(other);
      await freshKv.close();
    }
    clock.now = Date.UTC(2026, 0, 15, 23, 59, 59);
    expect(await status(secret)).toBe('402 API key USD spend limit exceeded');
    clock.now = Date.UTC(2026, 0, 16, 0, 0, 1);
    expect(await status(secret)).toBe(200);
    expect(await status(secret)).toBe('402 API key USD spend limit exceeded');
  });

  test('MONTH: days within the month keep counting; the 1st of the next month resets', async () => {
    clock.now = Date.UTC(2026, 0, 20);
    const { accountId, secret } = await newAccount(storage, { limitPeriod: 'MONTH', usd: COST });
    await m.meter.credit({ accountId, currency: 'USD', amountMicros: 1_000_000, requestId: `f-${accountId}` });
    expect(await status(secret)).toBe(200);
    // The settlement lands in Redis a few ms after the answer, while its hold covers the
    // call; this clock jumps past the hold's life first, so it waits for the landing.
    await m.meter.flush();
    clock.now = Date.UTC(2026, 0, 31, 23);
    expect(await status(secret)).toBe('402 API key USD spend limit exceeded');
    clock.now = Date.UTC(2026, 1, 1, 0, 0, 1);
    expect(await status(secret)).toBe(200);
  });

  test('a DIEM limit refuses with the DIEM message', async () => {
    const { accountId, secret } = await newAccount(storage, { limitPeriod: 'LIFETIME', diem: COST - 1 });
    await m.meter.credit({ accountId, currency: 'DIEM', amountMicros: 1_000_000, requestId: `f-${accountId}` });
    expect(await status(secret)).toBe('402 API key DIEM spend limit exceeded');
  });

  test('a reservation that is never settled (crash) frees the balance when its hold expires', async () => {
    clock.now = Date.UTC(2026, 2, 1, 10);
    const { accountId, secret } = await newAccount(storage);
    await m.meter.credit({ accountId, currency: 'USD', amountMicros: COST, requestId: `f-${accountId}` });
    const caller = await callerOf(m.deps, secret);
    // Opened and dropped: the process "crashed" before settle or release.
    await m.meter.open({
      ctx: { requestId: `lost-${accountId}`, startedAt: 0, caller },
      model: m.deps.models.get(MODEL)!,
      estimatedPromptTokens: 10,
      maxCompletionTokens: 5,
    });
    expect(await status(secret)).toBe('402 Insufficient USD or Diem balance to complete request.');
    clock.now += HOLD_TTL_MS - 1;
    expect(await status(secret)).toBe('402 Insufficient USD or Diem balance to complete request.');
    clock.now += 2;
    expect(await status(secret)).toBe(200);
    expect((await m.meter.balances(accountId)).USD).toBe(0);
  });
});
