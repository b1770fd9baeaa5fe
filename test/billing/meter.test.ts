import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { and, eq } from 'drizzle-orm';
import type { Currency } from '../../src/billing/credit';
import { writeLedgerBatch } from '../../src/billing/ledger-writer';
import type { MeterTicket } from '../../src/billing/meter';
import { balances } from '../../src/db/schema';
import type { Storage } from '../../src/db/database';
import type { KeyValueStore } from '../../src/kv/store';
import { startUpstream, type FixtureUpstream } from '../fixtures/openai-upstream';
import { BACKENDS } from '../helpers/backends';
import {
  backendPair,
  callerOf,
  charges,
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
  up = startUpstream('meter');
});
afterAll(() => up.close());

describe.each(BACKENDS)('usage meter on $name', (backend) => {
  let storage: Storage;
  let kv: KeyValueStore;
  let m: MeterInstance;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ storage, kv, m, close } = await openMeterSuite(backend, { upstreamUrl: up.url }));
  });
  afterAll(() => close());

  async function funded(currency: Currency = 'USD', micros = 1_000_000, key: Parameters<typeof newAccount>[1] = {}) {
    const account = await newAccount(storage, key);
    await m.meter.credit({
      accountId: account.accountId,
      currency,
      amountMicros: micros,
      requestId: `fund-${currency}-${account.accountId}`,
    });
    return account;
  }
  const dbBalance = async (accountId: string, currency: Currency = 'USD') =>
    (
      await storage.db
        .select()
        .from(balances)
        .where(and(eq(balances.accountId, accountId), eq(balances.currency, currency)))
    )[0]?.amountMicros ?? 0;

  test('balance headers show the balance before the request; usage and cost match the ledger rows', async () => {
    const { accountId, secret, keyId } = await funded();
    const first = await m.chat(secret);
    expect(first.status).toBe(200);
    expect(first.headers.get('x-svc-balance-usd')).toBe('1.000000');
    expect(first.headers.get('x-svc-balance-diem')).toBe('0.000000');
    const body = await first.json();
    expect(body.usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 5 });
    expect(body.cost).toEqual({ usd: 0.00002, diem: 0 });
    const second = await m.chat(secret);
    expect(second.headers.get('x-svc-balance-usd')).toBe('0.999980');
    await second.arrayBuffer();

    await m.meter.flush();
    const rows = (await charges(storage, accountId)).filter((r) => r.requestId === first.headers.get('cf-ray'));
    expect(
      rows
        .map((r) => ({ sku: r.sku, units: r.units, price: r.pricePerUnitUsd, amount: r.amountMicros }))
        .sort((a, b) => a.sku.localeCompare(b.sku)),
    ).toEqual([
      { sku: `${MODEL}-llm-input-mtoken`, units: '0.000010', price: '1.000000', amount: -10 },
      { sku: `${MODEL}-llm-output-mtoken`, units: '0.000005', price: '2.000000', amount: -10 },
    ]);
    for (const r of rows)
      expect(r).toMatchObject({ apiKeyId: keyId, modelId: MODEL, promptTokens: 10, completionTokens: 5, currency: 'USD' });
    expect(rows[0]!.executionMs).toBeGreaterThanOrEqual(0);
    expect(await dbBalance(accountId)).toBe(1_000_000 - 2 * COST);
  });

  test('DIEM pays first, at the model diemPerUsd rate; the cost block reports it', async () => {
    const { accountId, secret } = await funded('DIEM');
    await m.meter.credit({ accountId, currency: 'USD', amountMicros: 1_000_000, requestId: `usd-${accountId}` });
    const res = await m.chat(secret, { model: 'fixdiem' });
    expect(res.headers.get('x-svc-balance-diem')).toBe('1.000000');
    expect((await res.json()).cost).toEqual({ usd: 0, diem: 0.00004 });
    expect(await m.meter.balances(accountId)).toMatchObject({ USD: 1_000_000, DIEM: 1_000_000 - 40 });
    await m.meter.flush();
    expect((await charges(storage, accountId, 'DIEM')).reduce((s, r) => s + r.amountMicros, 0)).toBe(-40);
  });

  test('an upstream failure before the first byte charges nothing and frees the reservation', async () => {
    const failing = startUpstream('failing', { status: 500 });
    const f = await instance({ storage, kv, upstreamUrl: failing.url });
    try {
      const { accountId, secret } = await funded('USD', COST);
      for (const stream of [false, true]) {
        const res = await f.chat(secret, { stream });
        expect(res.status).toBeGreaterThanOrEqual(500);
        await res.arrayBuffer();
      }
      failing.set({});
      const ok = await f.chat(secret);
      expect(ok.status).toBe(200); // would be 402 if a failed request still held the balance
      await ok.arrayBuffer();
      expect((await f.meter.balances(accountId)).USD).toBe(0);
      await f.meter.flush();
      expect(new Set((await charges(storage, accountId)).map((r) => r.requestId)).size).toBe(1);
    } finally {
      await closeInstance(f);
      await failing.close();
    }
  });

  test('a client that disconnects mid-stream is charged once for what was forwarded', async () => {
    const slow = startUpstream('slow', { chunkDelayMs: 30, tokens: Array.from({ length: 40 }, (_, i) => `t${i} `) });
    const s = await instance({ storage, kv, upstreamUrl: slow.url });
    try {
      const { accountId, secret } = await funded();
      const abort = new AbortController();
      // With the service prompt asked for: the count must include what svc added upstream.
      const asked = { include_svc_system_prompt: true };
      const res = await s.chat(secret, { stream: true, max_tokens: 100, svc_parameters: asked }, { signal: abort.signal });
      expect(res.status).toBe(200);
      const reader = res.body!.getReader();
      await reader.read();
      await reader.read();
      const gone = slow.nextAbort();
      abort.abort();
      await reader.cancel().catch(() => {});
      await gone;
      let rows: Awaited<ReturnType<typeof charges>> = [];
      for (let i = 0; i < 50 && rows.length === 0; i++) {
        await Bun.sleep(20);
        await s.meter.flush();
        rows = await charges(storage, accountId);
      }
      const completion = rows[0]!.completionTokens!;
      expect(completion).toBeGreaterThan(0);
      expect(completion).toBeLessThan(40);
      expect(new Set(rows.map((r) => r.requestId)).size).toBe(1);
      // No usage report came: the prompt is counted as sent upstream (svc's system prompt included), the completion from what was forwarded.
      const prompt = rows[0]!.promptTokens!;
      expect(prompt).toBeGreaterThan(10);
      const charged = -rows.reduce((sum, r) => sum + r.amountMicros, 0);
      expect(charged).toBe(prompt + 2 * completion);
      expect((await s.meter.balances(accountId)).USD).toBe(1_000_000 - charged);
    } finally {
      await closeInstance(s);
      await slow.close();
    }
  });

  test('settling twice, or releasing after settling, charges once', async () => {
    const { accountId, secret } = await funded();
    const caller = await callerOf(m.deps, secret);
    const ctx = { requestId: `direct-${accountId}`, startedAt: performance.now(), caller };
    const ticket: MeterTicket = await m.meter.open({
      ctx,
      model: m.deps.models.get(MODEL)!,
      estimatedPromptTokens: 10,
      maxCompletionTokens: 5,
    });
    const usage = { promptTokens: 10, completionTokens: 5, executionMs: 3 };
    const [a, b] = await Promise.all([ticket.settle(usage), ticket.settle(usage)]);
    await ticket.release();
    expect(a).toEqual({ usdMicros: COST, diemMicros: 0 });
    expect(b).toEqual(a);
    // Another instance settling the same request id (a retried settlement) is a no-op too.
    const again = await m.meter.store.settle({
      accountId,
      requestId: ctx.requestId,
      currency: 'USD',
      amount: 999,
      counter: '',
      counterTtlMs: 0,
      charge: {
        accountId,
        apiKeyId: null,
        requestId: ctx.requestId,
        currency: 'USD',
        modelId: null,
        lines: [{ sku: 'retried', units: '1', pricePerUnitUsd: '0.000999', amount: -999 }],
        amount: -999,
        promptTokens: 0,
        completionTokens: 0,
        executionMs: 0,
        at: Date.now(),
      },
      settledTtlMs: 60_000,
    });
    expect(again).toEqual({ currency: 'USD', amount: COST });
    expect((await m.meter.balances(accountId)).USD).toBe(1_000_000 - COST);
    await m.meter.flush();
    expect(await charges(storage, accountId)).toHaveLength(2);
  });

  test('a ledger batch replayed after a crash between commit and trim is not charged twice', async () => {
    const { accountId, secret } = await funded();
    await (await m.chat(secret)).arrayBuffer();
    const batch = await m.meter.store.takeBatch(100);
    expect(batch).not.toBeNull();
    // One charge row, with the request's two line items.
    expect(await writeLedgerBatch(storage.db, batch!.charges)).toBe(1);
    await batch!.abandon(); // the writer "crashed": committed but never trimmed the queue
    expect(await m.meter.store.queued()).toBe(1);
    await m.meter.flush();
    expect(await m.meter.store.queued()).toBe(0);
    expect(await charges(storage, accountId)).toHaveLength(2);
    expect(await dbBalance(accountId)).toBe(1_000_000 - COST);
  });

  test('credits reach the live balance at once and are applied once per request id', async () => {
    const { accountId } = await funded();
    expect((await m.meter.balances(accountId)).USD).toBe(1_000_000);
    const credit = { accountId, currency: 'USD' as const, amountMicros: 500_000, requestId: `topup-${accountId}` };
    expect(await m.meter.credit(credit)).toBe(true);
    expect(await m.meter.credit(credit)).toBe(false);
    expect((await m.meter.balances(accountId)).USD).toBe(1_500_000);
    expect(await dbBalance(accountId)).toBe(1_500_000);
  });
});
