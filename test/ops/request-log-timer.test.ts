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
