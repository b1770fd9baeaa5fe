import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { SIGN_IN_FAILURES_PER_MINUTE } from '../../src/routes/console';
import { startTestApp, type TestApp } from '../helpers/app';
import { BACKENDS } from '../helpers/backends';

// The sign-in failure budget under a burst: every wrong key counts in one atomic step, so
// 100 at once from one address get at most the budget of 401s and 429 for the rest.
describe.each(BACKENDS)('console sign-in failures at once ($name)', (backend) => {
  let t: TestApp;
  let clock = Math.ceil(Date.now() / 60_000) * 60_000 + 1_000;
  beforeAll(async () => {
    t = await startTestApp({ backend, now: () => clock });
  });
  afterAll(() => t.close());

  const signIn = (key: string) =>
    t.app.handle(
      new Request('http://localhost/console/session', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ key }),
      }),
    );

  test('100 wrong keys sent at once: at most ten are 401, the rest 429, and a good key waits for the next minute', async () => {
    const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => signIn(`svc_wrong-${i}`)));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(SIGN_IN_FAILURES_PER_MINUTE);
    expect(statuses.filter((s) => s !== 401 && s !== 429)).toEqual([]);
    const limited = answers.find((r) => r.status === 429) as Response;
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await signIn(t.adminKey)).status).toBe(429);
    clock += 60_000;
    expect((await signIn(t.adminKey)).status).toBe(200);
  });
});
