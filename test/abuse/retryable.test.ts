import { afterAll, beforeAll, expect, test } from 'bun:test';
import { fixtureModel, fixtureProvider } from '../chat/helpers';
import { startUpstream, type FixtureUpstream } from '../fixtures/openai-upstream';
import { startTestApp, type TestApp } from '../helpers/app';

// A retryable 503 (Redis unreachable, the model at capacity) is svc's trouble, not the
// caller's: retrying it must not get the caller blocked as an abuser.
let up: FixtureUpstream;
let t: TestApp;
beforeAll(async () => {
  up = startUpstream('busy', { status: 503 });
  t = await startTestApp({
    config: {
      abuseGuard: { enabled: true },
      providers: [fixtureProvider('up', up.url)],
      models: [fixtureModel('fix', ['up'])],
    },
  });
});
afterAll(async () => {
  await t.close();
  await up.close();
});

test('25 retryable 503s in a row do not block the account', async () => {
  const chat = () =>
    t.request('/chat/completions', { method: 'POST', json: { model: 'fix', messages: [{ role: 'user', content: 'Hi' }] } });
  for (let i = 0; i < 25; i++) expect((await chat()).status).toBe(503);
  await Bun.sleep(100); // failures are counted after the response
  expect((await chat()).status).toBe(503);
  up.set({});
  expect((await chat()).status).toBe(200);
});
