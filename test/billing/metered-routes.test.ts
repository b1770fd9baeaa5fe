import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { Elysia, t as types } from 'elysia';
import { createApiKey } from '../../src/auth/api-keys';
import { createAccount } from '../../src/auth/bootstrap';
import type { ExtraCharge } from '../../src/billing/meter';
import { ledgerLines } from '../../src/db/schema';
import { pipelineStages } from '../../src/gates';
import { requestIdGate } from '../../src/gates/request-id';
import { errorHandler } from '../../src/http/error-handler';
import { startTestApp, type TestApp } from '../helpers/app';
import { BACKENDS } from '../helpers/backends';

const credits = (n: number): ExtraCharge[] => [{ sku: 'rpc-eth_call', units: n, unitPriceMicros: 150 }];
const JOB: ExtraCharge[] = [{ sku: 'video-job', units: 1, unitPriceMicros: 2_000_000 }];

/**
 * Routes of the families to come, built on the same stages as the app's: a call priced by
 * its line items (`meterWithoutModel`), and a job that reserves now and settles on a later
 * request (`holdUntil`, then `meter.resume`).
 */
function probeApp(t: TestApp) {
  const stages = pipelineStages(t.deps, undefined);
  const routes = new Elysia({ prefix: '/api/v1' })
    .use(stages)
    .post(
      '/crypto/rpc/:network',
      async function rpc({ call, body }) {
        const estimate = { promptTokens: 0, completionTokens: 0, extras: credits(body.calls) };
        await call.reserve(estimate);
        const settled = await call.settle({ promptTokens: 0, completionTokens: 0, extras: credits(body.calls), executionMs: 1 });
        return { charged: settled.usdMicros };
      },
      { meterWithoutModel: true, body: types.Object({ calls: types.Integer({ minimum: 1 }) }) },
    )
    .post(
      '/jobs/queue',
      async function queue({ call, svc }) {
        await call.reserve({ promptTokens: 0, completionTokens: 0, extras: JOB, holdUntil: Date.now() + 3_600_000 });
        return { queue_id: svc.requestId };
      },
      { meterWithoutModel: true },
    )
    .post(
      '/jobs/complete',
      async function complete({ body }) {
        const ticket = await t.deps.meter.resume(body.queue_id);
        if (!ticket) return { charged: null };
        const settled = await ticket.settle({ promptTokens: 0, completionTokens: 0, extras: JOB, executionMs: 1 });
        return { charged: settled.usdMicros };
      },
      { auth: 'ADMIN', body: types.Object({ queue_id: types.String() }) },
    );
  return new Elysia().use(requestIdGate).use(errorHandler(t.deps.log)).use(routes);
}

for (const backend of BACKENDS) {
  describe(`metered routes of the families to come, on ${backend.name}`, () => {
    let t: TestApp;
    let app: ReturnType<typeof probeApp>;
    let inferenceKey: string;
    beforeAll(async () => {
      t = await startTestApp({ backend });
      app = probeApp(t);
      const accountId = await createAccount(t.deps.storage.db, { creditUsd: '10' });
      inferenceKey = (await createApiKey(t.deps.storage.db, { accountId, type: 'INFERENCE' })).secret;
    });
    afterAll(() => t.close());

    const post = (path: string, json: unknown, key: string | null = t.adminKey) =>
      app.handle(
        new Request(`http://localhost/api/v1${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
          body: JSON.stringify(json),
        }),
      );
    const ledgerOf = async (requestId: string) => {
      await t.deps.meter.flush();
      return t.deps.storage.db.select().from(ledgerLines).where(eq(ledgerLines.requestId, requestId));
    };

    test('a call without a catalog model: any key, admitted by its route limit, charged by its line items', async () => {
      const res = await post('/crypto/rpc/ethereum-mainnet', { calls: 3 }, inferenceKey);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ charged: 450 });
      expect(res.headers.get('x-ratelimit-limit-requests')).toBeString();
      expect(res.headers.get('x-svc-balance-usd')).toBe('10.000000');
      const rows = await ledgerOf(res.headers.get('cf-ray') as string);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ sku: 'rpc-eth_call', modelId: null, amountMicros: -450 });
      expect((await post('/crypto/rpc/ethereum-mainnet', { calls: 3 }, null)).status).toBe(401);
      expect((await post('/crypto/rpc/ethereum-mainnet', { calls: 0 }, inferenceKey)).status).toBe(400);
    });

    test('a job reserves on one request and is charged once on a later one', async () => {
      const queued = await post('/jobs/queue', {});
      expect(queued.status).toBe(200);
      const { queue_id } = await queued.json();
      expect(await ledgerOf(queue_id)).toHaveLength(0);
      const done = await post('/jobs/complete', { queue_id });
      expect(await done.json()).toEqual({ charged: 2_000_000 });
      expect(await (await post('/jobs/complete', { queue_id })).json()).toEqual({ charged: null });
      const rows = await ledgerOf(queue_id);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ sku: 'video-job', amountMicros: -2_000_000 });
    });
  });
}
