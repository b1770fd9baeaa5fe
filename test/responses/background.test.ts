import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import OpenAI from 'openai';
import { createApp } from '../../src/app';
import { createApiKey } from '../../src/auth/api-keys';
import { createAccount } from '../../src/auth/bootstrap';
import { createDeps } from '../../src/boot';
import { parseConfig } from '../../src/config';
import { claimDue, findJob } from '../../src/jobs/store';
import { jobsRuntimeOf, stopJobs } from '../../src/jobs/runtime';
import { stopResponses } from '../../src/responses/runtime';
import { fixtureModel, fixtureProvider } from '../chat/helpers';
import { startUpstream, type FixtureUpstream } from '../fixtures/openai-upstream';
import { startTestApp, type TestApp } from '../helpers/app';
import { BACKENDS } from '../helpers/backends';
import { ledgerOf, usdBalance } from '../jobs/helpers';

type Response = OpenAI.Responses.Response;
const LEASE_MS = 600;
const requestIdOf = (r: { id: string }) => r.id.slice('resp_'.length);

for (const backend of BACKENDS)
  describe(`background responses on ${backend.name}`, () => {
    let up: FixtureUpstream;
    let t: TestApp;
    let config: Record<string, unknown>;
    let baseURL: string;
    let otherKey: string;
    beforeAll(async () => {
      up = startUpstream('bg');
      config = {
        providers: [fixtureProvider('up', up.url, 20_000)],
        models: [fixtureModel('fix-bg', ['up'])],
        jobs: { pollIntervalMs: 20, leaseMs: LEASE_MS },
      };
      t = await startTestApp({ backend, config });
      t.app.listen({ port: 0, hostname: '127.0.0.1' });
      baseURL = `http://127.0.0.1:${t.app.server?.port}/api/v1`;
      const other = await createAccount(t.deps.storage.db, { creditUsd: '10' });
      otherKey = (await createApiKey(t.deps.storage.db, { accountId: other, type: 'ADMIN' })).secret;
    }, 30_000);
    afterAll(async () => {
      await t.app.stop(true);
      await t.close();
      await up.close();
    });

    const client = (key = t.adminKey, url = baseURL) => new OpenAI({ baseURL: url, apiKey: key, maxRetries: 0 });
    const create = (input: string, c = client()) => c.responses.create({ model: 'fix-bg', input, background: true });
    /** Polls until the response leaves `queued` and `in_progress` (or reaches `status`). */
    async function pollUntil(id: string, done: (r: Response) => boolean, c = client()): Promise<Response> {
      for (let i = 0; i < 500; i++) {
        const r = await c.responses.retrieve(id);
        if (done(r)) return r;
        await Bun.sleep(20);
      }
      throw new Error(`response ${id} did not reach the state awaited`);
    }
    const finished = (r: Response) => r.status !== 'queued' && r.status !== 'in_progress';
    /** The reservations the account of response `id` holds now. */
    const holds = async (id: string) => t.deps.meter.liveHolds((await findJob(t.deps.storage.db, id))!.accountId);

    test('answered queued at once, polled with retrieve until completed, charged once as a foreground call', async () => {
      up.set({ tokens: ['Done ', 'later.'] });
      const before = await usdBalance(t);
      const queued = await create('Work in the background');
      expect(['queued', 'in_progress']).toContain(queued.status as string);
      expect(queued).toMatchObject({ object: 'response', background: true, store: true, output: [], model: 'fix-bg' });
      const done = await pollUntil(queued.id, finished);
      expect(done.status).toBe('completed');
      expect(done.output_text).toBe('Done later.');
      const { input_tokens: prompt, output_tokens: completion } = done.usage!;
      // fixtureModel's prices: 1 USD per million input tokens, 2 per million output tokens.
      expect(await ledgerOf(t, requestIdOf(done))).toEqual([{ kind: 'CHARGE', amount: -(prompt + 2 * completion) }]);
      expect(before - (await usdBalance(t))).toBe(prompt + 2 * completion);
      expect(await holds(done.id)).toBe(0);
      expect((await findJob(t.deps.storage.db, done.id))?.status).toBe('COMPLETED');
      // Replayed as its events, ending with response.completed.
      const replay = await fetch(`${baseURL}/responses/${done.id}?stream=true`, { headers: { authorization: `Bearer ${t.adminKey}` } });
      const events = [...(await replay.text()).matchAll(/^event: (.+)$/gm)].map((m) => m[1]);
      expect(events[0]).toBe('response.created');
      expect(events.at(-1)).toBe('response.completed');
      // Finished: a cancel answers it as it is.
      expect((await client().responses.cancel(done.id)).status).toBe('completed');
    });

    test('background needs store: a 400 naming it, nothing reserved', async () => {
      const before = await usdBalance(t);
      const res = await t.request('/responses', { method: 'POST', json: { model: 'fix-bg', input: 'x', background: true, store: false } });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: string }).error).toContain('background:');
      expect(await usdBalance(t)).toBe(before);
    });

    test('streamed: the events follow the run to response.completed, numbered from 0; GET ?stream=true follows a running one from starting_after', async () => {
      // The upstream answers late, so that the run is still going while the streams follow it.
      up.set({ tokens: ['Streamed ', 'later.'], headerDelayMs: 400 });
      const events: { type: string; sequence_number: number }[] = [];
      let id = '';
      for await (const event of await client().responses.create({ model: 'fix-bg', input: 'Stream it', background: true, stream: true })) {
        events.push(event);
        if (event.type === 'response.created') id = event.response.id;
      }
      expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
      expect(events[0]!.type).toBe('response.created');
      expect(events.at(-1)!.type).toBe('response.completed');
      const kept = await client().responses.retrieve(id);
      expect(kept).toMatchObject({ status: 'completed', output_text: 'Streamed later.' });
      expect(events.filter((e) => e.type === 'response.output_text.delta').map((e) => (e as unknown as { delta: string }).delta)).toEqual([
        'Streamed later.',
      ]);

      const queued = await create('Follow it');
      const followed = await fetch(`${baseURL}/responses/${queued.id}?stream=true&starting_after=1`, {
        headers: { authorization: `Bearer ${t.adminKey}` },
      });
      const text = await followed.text();
      const numbers = [...text.matchAll(/"sequence_number":(\d+)/g)].map((m) => Number(m[1]));
      expect(numbers[0]).toBe(2);
      expect(text.trimEnd().split('\n').at(-2)).toBe('event: response.completed');
      up.set({});
    });

    test('cancel: a foreground response is a 400, another account cannot see or cancel one (404), a cancel is idempotent', async () => {
      up.set({});
      const foreground = await client().responses.create({ model: 'fix-bg', input: 'Now' });
      const refused = await client()
        .responses.cancel(foreground.id)
        .catch((e) => e);
      expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
      expect(refused.error?.error ?? refused.message).toContain('background');

      up.set({ hang: true });
      const queued = await create('Hang');
      for (const op of [() => client(otherKey).responses.cancel(queued.id), () => client(otherKey).responses.retrieve(queued.id)])
        expect(await op().catch((e) => e)).toBeInstanceOf(OpenAI.NotFoundError);
      const cancelled = await client().responses.cancel(queued.id);
      expect(cancelled.status).toBe('cancelled');
      expect((await client().responses.cancel(queued.id)).status).toBe('cancelled');
      expect((await client().responses.retrieve(queued.id)).status).toBe('cancelled');
      up.set({});
    });

    test('cancelled during its upstream call before the first byte: the upstream is aborted, nothing is charged', async () => {
      up.set({ hang: true });
      const before = await usdBalance(t);
      const seen = up.requests.length;
      const aborted = up.nextAbort();
      const queued = await create('Hang until cancelled');
      await pollUntil(queued.id, (r) => r.status === 'in_progress' && up.requests.length > seen);
      const cancelled = await client().responses.cancel(queued.id);
      expect(cancelled.status).toBe('cancelled');
      await aborted;
      expect(await ledgerOf(t, requestIdOf(queued))).toEqual([]);
      expect(await usdBalance(t)).toBe(before);
      expect(await holds(queued.id)).toBe(0);
      const job = await findJob(t.deps.storage.db, queued.id);
      expect(job).toMatchObject({ status: 'CANCELLED', outcome: 'released' });
      up.set({});
    });

    test('cancelled midway through its stream: charged what the upstream produced, shown as its usage and cost', async () => {
      // Two events (the role, one word), then silence until the cancel.
      up.set({ tokens: ['Partial', ' never'], silenceAt: 2, silenceMs: 20_000 });
      const seen = up.requests.length;
      const queued = await create('Stream then cancel');
      await pollUntil(queued.id, (r) => r.status === 'in_progress' && up.requests.length > seen);
      // The stream's first content reaches the run before the headers do; a short wait lets it arrive.
      await Bun.sleep(300);
      const cancelled = await client().responses.cancel(queued.id);
      expect(cancelled.status).toBe('cancelled');
      const usage = cancelled.usage!;
      expect(usage.output_tokens).toBeGreaterThan(0);
      const charged = usage.input_tokens + 2 * usage.output_tokens;
      expect(await ledgerOf(t, requestIdOf(queued))).toEqual([{ kind: 'CHARGE', amount: -charged }]);
      expect((cancelled as unknown as { cost: { usd: number } }).cost.usd).toBe(charged / 1_000_000);
      expect(await holds(queued.id)).toBe(0);
      up.set({});
    });

    test('cancelled while queued (no runner): its reservation given back, nothing charged', async () => {
      await stopJobs(t.deps);
      try {
        const before = await usdBalance(t);
        const queued = await create('Never runs');
        expect(queued.status).toBe('queued');
        expect(await holds(queued.id)).toBe(1);
        const cancelled = await client().responses.cancel(queued.id);
        expect(cancelled.status).toBe('cancelled');
        expect(await holds(queued.id)).toBe(0);
        expect(await usdBalance(t)).toBe(before);
        expect(await ledgerOf(t, requestIdOf(queued))).toEqual([]);
      } finally {
        jobsRuntimeOf(t.deps);
      }
    });

    test('durable: queued on an instance that stops, one claimed by a worker that died; a new instance on the same database completes both, charged once', async () => {
      up.set({ tokens: ['After ', 'restart.'] });
      await stopJobs(t.deps);
      const before = await usdBalance(t);
      const left = await create('Queued before the stop');
      const orphan = await create('Claimed by a dead worker');
      // A worker claims one and dies: its lease is left behind.
      const claimed = await claimDue(t.deps.storage.db, 'dead-worker', Date.now() + 1000, LEASE_MS, 10);
      expect(claimed.map((j) => j.id)).toEqual(expect.arrayContaining([left.id, orphan.id]));
      await t.deps.meter.flush();

      const deps = await createDeps(parseConfig({ logLevel: 'silent', abuseGuard: { enabled: false }, ...config }), {
        storage: t.deps.storage,
        kv: t.deps.kv,
      });
      const second = createApp(deps).listen({ port: 0, hostname: '127.0.0.1' });
      const secondURL = `http://127.0.0.1:${second.server?.port}/api/v1`;
      try {
        let total = 0;
        for (const r of [left, orphan]) {
          const done = await pollUntil(r.id, finished, client(t.adminKey, secondURL));
          expect(done.status).toBe('completed');
          expect(done.output_text).toBe('After restart.');
          await deps.meter.flush();
          const charge = done.usage!.input_tokens + 2 * done.usage!.output_tokens;
          expect(await ledgerOf(t, requestIdOf(r))).toEqual([{ kind: 'CHARGE', amount: -charge }]);
          total += charge;
        }
        // Embedded, each instance keeps its own in-process balance mirror (one process per data folder in production); Redis shares it.
        if (backend.name === 'external') expect(before - (await usdBalance(t))).toBe(total);
        // The first instance reads what the second stored.
        expect((await client().responses.retrieve(left.id)).status).toBe('completed');
      } finally {
        await second.stop(true);
        await stopJobs(deps);
        await stopResponses(deps);
        await deps.meter.close();
        jobsRuntimeOf(t.deps);
      }
    }, 30_000);
  });
