import { afterEach, describe, expect, test } from 'bun:test';
import { abuseGuardOf } from '../../src/gates/abuse-guard';
import { parseAbuseGuardConfig } from '../../src/limits/abuse-guard';
import { BACKENDS } from '../helpers/backends';
import { startCluster, type Cluster, type Instance } from './instances';

const MESSAGE = 'Too many failed attempts (> 20) resulting in a non-success status code. Please wait 30s and try again.';
const FAILING = '/api_keys/not-a-uuid'; // 400 for an ADMIN key
const VALID = '/api_keys';

async function fail(i: Instance, n: number, init: RequestInit & { key?: string | null } = {}, path = FAILING) {
  for (let k = 0; k < n; k++) {
    const res = await i.request(path, init);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).not.toBe(429);
  }
  await i.settled();
}

async function expectBlocked(res: Response, clock: { now: number }, secondsLeft = 30) {
  expect(res.status).toBe(429);
  expect(await res.json()).toEqual({ error: MESSAGE });
  expect(res.headers.get('retry-after')).toBe(String(secondsLeft));
  expect(res.headers.get('x-ratelimit-reset-requests')).toBe(String(Math.ceil((clock.now + secondsLeft * 1000) / 1000)));
}

/** Polls with successful requests (never counted) until the instance refuses one, at most 2 s. */
async function untilRefused(i: Instance, key?: string): Promise<Response> {
  for (let k = 0; k < 200; k++) {
    const res = await i.request(VALID, { key });
    if (res.status === 429) return res;
    await Bun.sleep(10);
  }
  throw new Error('never refused');
}

for (const backend of BACKENDS)
  describe(`abuse guard (${backend.name})`, () => {
    let c: Cluster;
    afterEach(async () => c?.close());

    test('21 failures block for 30 s: the next request, even a valid one, gets the 429 with its headers', async () => {
      c = await startCluster(backend);
      await fail(c.a, 21);
      c.clock.now += 1_000;
      await expectBlocked(await c.a.request(VALID), c.clock, 29);
      // The block's own 429s are not counted and do not extend it.
      for (let k = 0; k < 25; k++) expect((await c.a.request(FAILING)).status).toBe(429);
      await c.a.settled();
      expect(c.refusals.length).toBe(26);
      expect(c.refusals[0]).toEqual({
        accountId: c.adminAccountId,
        apiKeyId: expect.any(String),
        modelId: 'endpoint:api/v1/api_keys',
        tier: 'standard',
        type: 'FAILED_REQUESTS',
      });
      c.clock.now += 28_999;
      expect((await c.a.request(VALID)).status).toBe(429);
      c.clock.now += 1;
      expect((await c.a.request(VALID)).status).toBe(200);
      // Counting starts afresh after the block: 20 new failures do not block again.
      await fail(c.a, 20);
      expect((await c.a.request(VALID)).status).toBe(200);
    });

    test('20 failures do not block; successful requests are not counted', async () => {
      c = await startCluster(backend);
      await fail(c.a, 10);
      for (let k = 0; k < 30; k++) expect((await c.a.request(VALID)).status).toBe(200);
      await fail(c.a, 10);
      await c.a.settled();
      expect((await c.a.request(VALID)).status).toBe(200);
      expect(c.refusals).toEqual([]);
    });

    test('the window slides: 20 failures late in one window and 2 early in the next block', async () => {
      c = await startCluster(backend);
      c.clock.now += 29_000;
      await fail(c.a, 20);
      c.clock.now += 2_000; // 1 s into the next window: the previous one still weighs 29/30 of its 20
      await fail(c.a, 1);
      expect((await c.a.request(VALID)).status).toBe(200);
      await fail(c.a, 1);
      expect((await c.a.request(VALID)).status).toBe(429);
    });

    test('a block on one instance is honoured by another sharing the KV store', async () => {
      c = await startCluster(backend);
      await fail(c.a, 21);
      await expectBlocked(await untilRefused(c.b), c.clock);
      // Failures split across instances add up.
      c.clock.now += 30_000;
      expect((await c.b.request(VALID)).status).toBe(200);
      await fail(c.a, 10);
      await fail(c.b, 11);
      expect((await c.b.request(VALID)).status).toBe(429);
      expect((await untilRefused(c.a)).status).toBe(429);
    });

    test('100 failures at once over two instances: exactly one starts the block, both instances refuse, and the block consumed them', async () => {
      c = await startCluster(backend);
      const answers = await Promise.all(Array.from({ length: 100 }, (_, k) => (k % 2 ? c.a : c.b).request(FAILING)));
      expect(answers.every((r) => r.status === 400)).toBe(true);
      await Promise.all([c.a.settled(), c.b.settled()]);
      expect((await c.a.request(VALID)).status).toBe(429);
      expect((await untilRefused(c.b)).status).toBe(429);
      // The counting step itself, raced: one failure, and only one, reports the block it started.
      const guard = abuseGuardOf(c.a.deps);
      const started = await Promise.all(Array.from({ length: 100 }, () => guard.countFailure('ip:198.51.100.99')));
      expect(started.filter(Boolean).length).toBe(1);
      // After the block nothing is left over: 20 new failures do not block again.
      c.clock.now += 30_000;
      expect((await c.a.request(VALID)).status).toBe(200);
      await fail(c.a, 20);
      expect((await c.a.request(VALID)).status).toBe(200);
    });

    test('a flood of bad keys blocks that credential, never the accounts of valid keys', async () => {
      c = await startCluster(backend);
      await fail(c.a, 21, { key: 'not-a-real-key' }, VALID);
      const blocked = await c.a.request(VALID, { key: 'not-a-real-key' });
      expect(blocked.status).toBe(429);
      expect((await blocked.json()).error).toBe(MESSAGE);
      expect((await c.a.request(VALID)).status).toBe(200);
      expect((await c.a.request('/models', { key: c.otherKey })).status).toBe(200);
      // A different bad key is a different credential (401, not 429); and no account was logged.
      expect((await c.a.request(VALID, { key: 'another-bad-key' })).status).toBe(401);
      expect(c.refusals).toEqual([]);
    });

    test('an INFERENCE key refused by an ADMIN route counts against its own account', async () => {
      c = await startCluster(backend);
      await fail(c.a, 21, { key: c.otherKey }, VALID);
      expect((await c.a.request('/models', { key: c.otherKey })).status).toBe(429);
      expect((await c.a.request(VALID)).status).toBe(200);
    });

    test('requests without credentials are counted by client IP (trusted X-Forwarded-For) and block only anonymous requests', async () => {
      c = await startCluster(backend, { trustForwardedFor: true });
      const from = (ip: string) => ({ headers: { 'x-forwarded-for': `198.51.100.7, ${ip}` } });
      await fail(c.a, 21, { key: null, ...from('203.0.113.9') }, VALID);
      expect((await c.a.request(VALID, { key: null, ...from('203.0.113.9') })).status).toBe(429);
      expect((await c.a.request(VALID, { key: null, ...from('203.0.113.10') })).status).toBe(401);
      expect((await c.a.request(VALID, from('203.0.113.9'))).status).toBe(200);
    });

    test('disabled, nothing is counted', async () => {
      c = await startCluster(backend, { enabled: false });
      await fail(c.a, 30);
      expect((await c.a.request(VALID)).status).toBe(200);
    });
  });

describe('abuseGuard config', () => {
  test('defaults', () => {
    expect(parseAbuseGuardConfig(undefined)).toEqual({
      enabled: true,
      maxFailures: 20,
      windowSeconds: 30,
      blockSeconds: 30,
      trustForwardedFor: false,
    });
  });
  test('a bad field is named', () => {
    expect(() => parseAbuseGuardConfig({ maxFailures: 0 })).toThrow('abuseGuard.maxFailures');
    expect(() => parseAbuseGuardConfig({ blockSecs: 3 })).toThrow('abuseGuard');
  });
});
