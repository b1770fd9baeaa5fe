import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { fixtureModel, fixtureProvider } from '../chat/helpers';
import { startUpstream, type FixtureUpstream } from '../fixtures/openai-upstream';
import { startTestApp, type TestApp } from '../helpers/app';
import { BACKENDS } from '../helpers/backends';

// The writer's own timer, not a test's flush(), must write each batch: after its first batch it
// once saw a drain forever under way and held every later record in the heap.
for (const backend of BACKENDS) {
  describe(`request log written by its timer (${backend.name})`, () => {
    let upstream: FixtureUpstream;
    let t: TestApp;
    const body = { model: 'rlt-model', messages: [{ role: 'user', content: 'hi' }] };

    beforeAll(async () => {
      upstream = startUpstream('rlt');
      t = await startTestApp({
        backend,
        config: {
          providers: [fixtureProvider('rlt-up', upstream.url)],
          models: [fixtureModel('rlt-model', ['rlt-up'])],
          observability: { requestLog: { flushIntervalMs: 20 } },
        },
        fetch,
      });
    });
    afterAll(async () => {
      await t.close();
      await upstream.close();
    });

    /** Whether /admin/requests/{id} finds the request within `ms`, polled. */
    async function logged(id: string, ms = 3_000): Promise<boolean> {
      const deadline = Date.now() + ms;
      while (Date.now() < deadline) {
        if ((await t.request(`/admin/requests/${id}`)).status === 200) return true;
        await Bun.sleep(20);
      }
      return false;
    }

    test('every batch, not only the first, is written without a flush', async () => {
      for (let round = 0; round < 3; round++) {
        const res = await t.request('/chat/completions', { method: 'POST', json: body });
        expect(res.status).toBe(200);
        expect(await logged(res.headers.get('cf-ray')!)).toBe(true);
      }
    });
  });
}

/** `svc_request_log_backlog` on the app's /metrics. */
async function backlog(t: TestApp): Promise<number> {
  await new Promise((resolve) => setImmediate(resolve));
  const text = await (await t.app.handle(new Request('http://localhost/metrics'))).text();
  const m = /^svc_request_log_backlog (\S+)$/m.exec(text);
  if (!m) throw new Error('svc_request_log_backlog is missing from /metrics');
  return Number(m[1]);
}

// The bench waits for this gauge before and after a measured window, so a window pays for its
// own rows and no earlier phase's: it must count what is queued, and fall back to 0 once written.
describe('svc_request_log_backlog', () => {
  let upstream: FixtureUpstream;
  let t: TestApp;

  beforeAll(async () => {
    upstream = startUpstream('rlb');
    t = await startTestApp({
      config: {
        providers: [fixtureProvider('rlb-up', upstream.url)],
        models: [fixtureModel('rlb-model', ['rlb-up'])],
        observability: { requestLog: { flushIntervalMs: 60_000 } },
      },
      fetch,
    });
  });
  afterAll(async () => {
    await t.close();
    await upstream.close();
  });

  test('counts the records queued, and 0 once they are written', async () => {
    for (let i = 0; i < 2; i++) {
      const res = await t.request('/chat/completions', {
        method: 'POST',
        json: { model: 'rlb-model', messages: [{ role: 'user', content: 'hi' }] },
      });
      expect(res.status).toBe(200);
    }
    expect(await backlog(t)).toBe(2);
    // The /metrics read above is logged too, once its response is handed over.
    await new Promise((resolve) => setImmediate(resolve));
    await t.deps.observability!.recorder!.flush();
    expect(await backlog(t)).toBe(0);
  });
});
