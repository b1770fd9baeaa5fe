import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { hashSecret } from '../../src/auth/api-keys';
import { closeDeps, createDeps } from '../../src/boot';
import type { ExtraCharge, UsageMeter } from '../../src/billing/meter';
import { ledgerLines, reservations } from '../../src/db/schema';
import type { AppDeps } from '../../src/deps';
import type { Caller, RequestContext } from '../../src/http/request-context';
import { startTestApp, type TestApp } from '../helpers/app';
import { BACKENDS } from '../helpers/backends';
import { rejectionOf } from '../helpers/rejection';

const USD = 1_000_000;
const job = (usd: number): ExtraCharge[] => [{ sku: 'video-job', units: 1, unitPriceMicros: usd * USD }];

for (const backend of BACKENDS) {
  describe(`reservations that outlive a request, and calls without a catalog model, on ${backend.name}`, () => {
    const clock = { now: Date.now() };
    let t: TestApp;
    let caller: Caller;
    let n = 0;

    beforeAll(async () => {
      t = await startTestApp({ backend, now: () => clock.now });
      const key = await t.deps.keys.lookup(hashSecret(t.adminKey));
      if (!key) throw new Error('no bootstrap key');
      caller = { accountId: key.accountId, tier: key.tier, via: 'api_key', apiKey: key, wallet: null };
    });
    afterAll(() => t.close());

    const ctx = (): RequestContext => ({ requestId: `req-${backend.name}-${++n}-${clock.now}`, startedAt: performance.now(), caller });
    const openJob = async (meter: UsageMeter, usd: number, holdUntil?: number) =>
      meter.open({
        ctx: ctx(),
        model: null,
        endpoint: '/video/queue',
        estimatedPromptTokens: 0,
        maxCompletionTokens: 0,
        extras: job(usd),
        holdUntil,
      });
    const usdBalance = async (meter: UsageMeter) => ((await meter.balances(caller.accountId)).USD ?? 0) / USD;
    const charges = async (deps: AppDeps, requestId: string) => {
      await deps.meter.flush();
      return deps.storage.db.select().from(ledgerLines).where(eq(ledgerLines.requestId, requestId));
    };
    /** A second instance on the same database whose KV starts empty: a restart, or Redis losing its data. */
    const restart = async () =>
      createDeps(t.deps.config, {
        storage: { ...t.deps.storage, close: async () => {} },
        kv: await backend.kv({ now: () => clock.now }),
        now: () => clock.now,
      });

    test('a kept hold survives a restart with an empty KV, is settled once later, and is then forgotten', async () => {
      const before = await usdBalance(t.deps.meter);
      const requestId = `kept-${backend.name}`;
      const opened = await t.deps.meter.open({
        ctx: { requestId, startedAt: performance.now(), caller },
        model: null,
        endpoint: '/video/queue',
        estimatedPromptTokens: 0,
        maxCompletionTokens: 0,
        extras: job(before - 1),
        holdUntil: clock.now + 3_600_000,
      });
      expect(opened.balances.usd).toBe(before * USD);
      // The hold blocks what the balance cannot cover besides it.
      expect(await rejectionOf(openJob(t.deps.meter, 2))).toMatchObject({ status: 402 });

      const after = await restart();
      try {
        expect(await rejectionOf(openJob(after.meter, 2))).toMatchObject({ status: 402 });
        const ticket = await after.meter.resume(requestId);
        expect(ticket).not.toBeNull();
        const settled = await ticket!.settle({ promptTokens: 0, completionTokens: 0, extras: job(2), executionMs: 5 });
        expect(settled.usdMicros).toBe(2 * USD);
        expect(await ticket!.settle({ promptTokens: 0, completionTokens: 0, extras: job(2), executionMs: 5 })).toEqual(settled);
        const rows = await charges(after, requestId);
        expect(rows).toHaveLength(1);
        expect(rows[0]).toMatchObject({ sku: 'video-job', modelId: null, amountMicros: -2 * USD });
        expect(await after.meter.resume(requestId)).toBeNull();
        expect(await t.deps.storage.db.select().from(reservations).where(eq(reservations.requestId, requestId))).toHaveLength(0);
        expect(await usdBalance(after.meter)).toBe(before - 2);
        // The hold is gone with the settlement: the rest of the balance is usable again.
        const next = await openJob(after.meter, before - 3);
        await next.release();
      } finally {
        await closeDeps(after);
        // The first instance stands for the one that was restarted: give its stale hold back.
        await opened.release();
      }
    });

    test('a kept hold that expires is refunded: nothing charged, the balance free again, resume finds nothing', async () => {
      const before = await usdBalance(t.deps.meter);
      const kept = await openJob(t.deps.meter, before - 1, clock.now + 5_000);
      expect(await rejectionOf(openJob(t.deps.meter, 2))).toMatchObject({ status: 402 });
      expect(await t.deps.meter.expireReservations()).toBe(0);
      clock.now += 6_000;
      expect(await t.deps.meter.expireReservations()).toBe(1);
      const free = await openJob(t.deps.meter, before - 1);
      await free.release();
      // A settlement after the expiry charges nothing: the reservation was refunded.
      expect((await kept.settle({ promptTokens: 0, completionTokens: 0, extras: job(1), executionMs: 1 })).usdMicros).toBe(0);
      expect(await usdBalance(t.deps.meter)).toBe(before);
    });

    test('recover() at start restores live holds and refunds expired ones', async () => {
      const live = await openJob(t.deps.meter, 10, clock.now + 3_600_000);
      const soon = await openJob(t.deps.meter, 1, clock.now + 1_000);
      clock.now += 2_000;
      const after = await restart();
      try {
        // createDeps ran recover(): the expired one is gone, the live one holds 10 USD again.
        expect(await t.deps.storage.db.select().from(reservations)).toHaveLength(1);
        const balance = await usdBalance(after.meter);
        expect(await rejectionOf(openJob(after.meter, balance - 9))).toMatchObject({ status: 402 });
        const fits = await openJob(after.meter, balance - 10);
        await fits.release();
      } finally {
        await closeDeps(after);
        await live.release();
        await soon.release();
      }
    });

    test('a call without a catalog model is admitted by its endpoint limit and priced by its line items', async () => {
      const context = ctx();
      const rpc: ExtraCharge[] = [{ sku: 'rpc-eth_call', units: 3, unitPriceMicros: 150 }];
      const ticket = await t.deps.meter.open({
        ctx: context,
        model: null,
        endpoint: '/crypto/rpc/ethereum-mainnet',
        estimatedPromptTokens: 0,
        maxCompletionTokens: 0,
        extras: rpc,
      });
      expect(ticket.headers['x-ratelimit-limit-requests']).toBeDefined();
      const settled = await ticket.settle({ promptTokens: 0, completionTokens: 0, extras: rpc, executionMs: 1 });
      expect(settled.usdMicros).toBe(450);
      const rows = await charges(t.deps, context.requestId);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ sku: 'rpc-eth_call', units: '3', pricePerUnitUsd: '0.000150', modelId: null, amountMicros: -450 });
    });
  });
}
