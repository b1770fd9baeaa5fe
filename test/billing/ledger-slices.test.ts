import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { LedgerOutbox } from '../../src/billing/ledger-outbox';
import type { LedgerCharge } from '../../src/billing/ledger-row';
import { startLedgerWriter, writeLedgerBatch } from '../../src/billing/ledger-writer';
import { createMemoryBillingStore } from '../../src/billing/memory-store';
import { SlicePacer } from '../../src/billing/slice-pacer';
import type { Storage } from '../../src/db/database';
import { createLogger } from '../../src/log';
import { EMBEDDED } from '../helpers/backends';
import { newAccount } from './meter-helpers';

// PGlite runs on svc's own thread: a ledger batch goes in as COPY slices of a few ms with the
// event loop served between them, in ONE transaction, so the batch still commits whole.
describe('ledger batches on the embedded database', () => {
  let storage: Storage;
  beforeAll(async () => {
    storage = await EMBEDDED.storage();
  });
  afterAll(() => storage.close());

  /** A chat settlement: one row with two line items (input -3, output -4 micro-USD). */
  const settlement = (accountId: string, requestId: string): LedgerCharge => ({
    accountId,
    apiKeyId: null,
    requestId,
    currency: 'USD',
    modelId: 'm',
    lines: (['input', 'output'] as const).map((part, i) => ({
      sku: `m-llm-${part}-mtoken`,
      units: '0.000010',
      pricePerUnitUsd: '0.300000',
      amount: -3 - i,
    })),
    amount: -7,
    promptTokens: 10,
    completionTokens: 20,
    executionMs: 5,
    at: Date.now(),
  });
  const settlements = (accountId: string, prefix: string, n: number) =>
    Array.from({ length: n }, (_, i) => settlement(accountId, `${prefix}-${i}`));

  /** Charge rows and balance of an account, read in one statement. */
  async function ledgerOf(accountId: string) {
    const result = await storage.db.execute(sql`
      select (select count(*)::int from ledger_charges where account_id = ${accountId}) as rows,
             (select coalesce(sum(amount_micros), 0)::bigint from balances where account_id = ${accountId} and currency = 'USD') as balance`);
    const [row] = (result as unknown as { rows: { rows: number; balance: string | number }[] }).rows;
    return { rows: Number(row!.rows), balance: Number(row!.balance) };
  }

  test('a backlog is written while the event loop keeps running; readers meanwhile see whole batches only; the ledger is exact', async () => {
    const { accountId } = await newAccount(storage);
    const outbox = new LedgerOutbox();
    for (const charge of settlements(accountId, 'backlog', 3000)) outbox.push(charge);
    const store = createMemoryBillingStore({ now: Date.now, outbox });
    const writer = startLedgerWriter({
      db: storage.db,
      store,
      log: createLogger('error', () => {}),
      intervalMs: 60_000,
      batchSize: 1000,
      sliceMs: 1,
    });
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    let done = false;
    const flushed = writer.flush().finally(() => (done = true));
    const seen: number[] = [];
    // Each read waits behind the open transaction (PGlite queues it), then sees all of a batch or none.
    while (!done) {
      seen.push((await ledgerOf(accountId)).rows);
      await Bun.sleep(1);
    }
    await flushed;
    clearInterval(timer);
    await writer.close();

    expect(await ledgerOf(accountId)).toEqual({ rows: 3000, balance: -3000 * 7 });
    expect(seen.filter((n) => n % 1000 !== 0)).toEqual([]);
    // 3,000 rows at 1 ms a slice: dozens of turns of the loop. Written in three COPYs, none.
    expect(ticks).toBeGreaterThan(20);
  });

  test('a replayed batch whose old rows come in a later slice rolls back whole and adds only the new rows', async () => {
    const { accountId } = await newAccount(storage);
    const old = settlements(accountId, 'old', 50);
    expect(await writeLedgerBatch(storage.db, old)).toBe(50);
    const fresh = settlements(accountId, 'fresh', 300);
    // A budget far below one row's cost: every slice is the smallest (32 rows), so the old rows are many slices in.
    const pacer = new SlicePacer(0.001);
    expect(await writeLedgerBatch(storage.db, [...fresh, ...old], { pacer })).toBe(300);
    expect(await ledgerOf(accountId)).toEqual({ rows: 350, balance: -350 * 7 });
  });
});

describe('SlicePacer', () => {
  test('sizes slices to the budget from the time measured per item, the smallest first', () => {
    const pacer = new SlicePacer(2, 32);
    expect(pacer.next(1000)).toBe(32);
    pacer.record(32, 0.32); // 10 µs an item
    expect(pacer.next(1000)).toBe(200);
    expect(pacer.next(50)).toBe(50);
    pacer.record(200, 6); // 30 µs an item: the estimate moves half-way, to 20 µs
    expect(pacer.next(1000)).toBe(100);
    pacer.record(100, 100); // a stall: never below the smallest slice
    expect(pacer.next(1000)).toBe(32);
  });

  test('after a long turn of the event loop, a slice may last half as long, up to 10 budgets', async () => {
    const pacer = new SlicePacer(2, 32);
    pacer.record(100, 1); // 10 µs an item
    await pacer.pause();
    const quiet = pacer.next(10_000);
    // Requests served for 30 ms between two slices: the next may take 15 ms (1,500 items).
    setImmediate(() => Bun.sleepSync(30));
    await pacer.pause();
    expect(quiet).toBeLessThan(1000);
    expect(pacer.next(10_000)).toBeGreaterThanOrEqual(1500);
    expect(pacer.next(10_000)).toBeLessThanOrEqual(2000);
  });
});
