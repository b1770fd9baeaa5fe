import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { fixtureModel, fixtureProvider } from '../chat/helpers';
import { startUpstream, type FixtureUpstream } from '../fixtures/openai-upstream';
import { startTestApp, type TestApp } from '../helpers/app';
import { BACKENDS } from '../helpers/backends';

// The other request-log suites call flush(); a server relies on its timer alone. The timer once
// saw its first write as running forever, so every later row waited for shutdown (and was lost
// past the shutdown's 3 s bound).
for (const backend of BACKENDS) {
  describe(`request log written by its timer alone (${backend.name})`, () => {
    let upstream: FixtureUpstream;
    let t: TestApp;
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

    const logged = async (id: string) => {
      for (let i = 0; i < 100; i++) {
        if ((await t.request(`/admin/requests/${id}`)).status === 200) return true;
        await Bun.sleep(20);
      }
      return false;
    };

    test('rows of requests answered after an earlier write are written too, without a flush', async () => {
      for (let round = 0; round < 3; round++) {
        const res = await t.request('/chat/completions', {
          method: 'POST',
          json: { model: 'rlt-model', messages: [{ role: 'user', content: 'hi' }] },
        });
        expect(res.status).toBe(200);
        expect(await logged(res.headers.get('cf-ray')!)).toBe(true);
      }
    }, 15_000);
  });
}
