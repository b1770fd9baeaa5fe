import { afterAll, beforeAll, expect, test } from 'bun:test';
import { Elysia } from 'elysia';
import { abuseGuardGate, abuseGuardOf } from '../../src/gates/abuse-guard';
import { authGate } from '../../src/gates/auth';
import { requestIdGate } from '../../src/gates/request-id';
import { errorHandler } from '../../src/http/error-handler';
import { startTestApp, type TestApp } from '../helpers/app';

// Statuses that are not the caller's failures: 429 (rate limits; spec 7 asks clients to
// retry them with backoff) and 499 (the client closed the request, e.g. a user pressing stop).
let t: TestApp;
let probe: Elysia;
beforeAll(async () => {
  t = await startTestApp({ config: { abuseGuard: { enabled: true } } });
  probe = new Elysia()
    .use(requestIdGate)
    .use(errorHandler(t.deps.log))
    .use(abuseGuardGate(t.deps))
    .use(authGate({ keys: t.deps.keys, now: t.deps.now }))
    .get(
      '/status/:code',
      ({ params, set }) => {
        set.status = Number(params.code);
        return { error: 'probe' };
      },
      { authenticate: 'ADMIN', abuseGuard: true },
    ) as unknown as Elysia;
});
afterAll(() => t.close());

const hit = async (code: number) =>
  (await probe.handle(new Request(`http://localhost/status/${code}`, { headers: { authorization: `Bearer ${t.adminKey}` } }))).status;

test('25 responses of 429 and 25 of 499 do not block; 21 of 400 do', async () => {
  for (let k = 0; k < 25; k++) expect(await hit(429)).toBe(429);
  for (let k = 0; k < 25; k++) expect(await hit(499)).toBe(499);
  await abuseGuardOf(t.deps).idle();
  expect(await hit(200)).toBe(200);
  for (let k = 0; k < 21; k++) expect(await hit(400)).toBe(400);
  await abuseGuardOf(t.deps).idle();
  expect(await hit(200)).toBe(429);
});
