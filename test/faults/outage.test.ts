import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { freeRedisPorts, ownRedis, type OwnRedis } from '../helpers/redis-server';
import { startFleet, within, type Fleet } from './instances';

// Three instances on a Redis this test starts and stops on its own (free) port.
let redis: OwnRedis;
let fleet: Fleet;

beforeAll(async () => {
  redis = ownRedis(freeRedisPorts(1)[0]!);
  await redis.start();
  fleet = await startFleet({ redisUrl: redis.url, n: 3 });
});

afterAll(async () => {
  await fleet?.close();
  await redis?.dispose();
});

/** Every instance serves a chat (JSON and stream) and its cost is counted. */
async function allServe() {
  for (let i = 0; i < fleet.instances.length; i++)
    for (const stream of [false, true]) {
      const r = await fleet.chat(i, { stream });
      expect(r).toMatchObject({ status: 200, error: null });
      expect(r.costMicros).toBeGreaterThan(0);
    }
}

/** While Redis is down: every instance answers 503 with Retry-After, fast, and charges nothing. */
async function allRefuse(boundMs: number) {
  for (let i = 0; i < fleet.instances.length; i++) {
    const r = await fleet.chat(i);
    expect(r.status).toBe(503);
    expect(r.retryAfter).toBe('2');
    expect(r.error).toContain('unreachable');
    expect(r.ms).toBeLessThan(boundMs);
    const balance = await fleet.instances[i]!.handle('/billing/balance');
    expect(balance.status).toBe(503);
    expect(balance.headers.get('retry-after')).toBe('2');
    expect((await fleet.instances[i]!.handle('/health/ready')).status).toBe(503);
  }
}

/** Restarts Redis and measures how long until every instance serves again (ms). */
async function recover(): Promise<number> {
  await redis.start();
  const waited = await within(5_000, async () => {
    for (let i = 0; i < fleet.instances.length; i++) if ((await fleet.chat(i)).status !== 200) return false;
    return true;
  });
  for (let i = 0; i < fleet.instances.length; i++) expect((await fleet.instances[i]!.handle('/health/ready')).status).toBe(200);
  return waited;
}

/** A new ADMIN key, used once on every instance so each has it cached. */
async function cachedKey(): Promise<{ id: string; secret: string }> {
  const res = await fleet.instances[0]!.handle('/api_keys', { method: 'POST', json: { apiKeyType: 'ADMIN', description: 'outage' } });
  const data = (await res.json()).data;
  for (const inst of fleet.instances)
    expect((await inst.handle('/api_keys/rate_limits', { headers: { authorization: `Bearer ${data.apiKey}` } })).status).toBe(200);
  return { id: data.id, secret: data.apiKey };
}

/** An outage of `seconds`: requests refused all along, each within 2 s; everyone serves within 5 s of the return. */
async function outage(seconds: number) {
  await allServe();
  const key = await cachedKey();
  await redis.stop();
  const until = Date.now() + seconds * 1000;
  while (Date.now() < until) {
    await allRefuse(2_000);
    await Bun.sleep(Math.min(1_000, Math.max(0, until - Date.now())));
  }
  const ms = await recover();
  console.log(
    `redis outage of ${seconds} s: all ${fleet.instances.length} instances served again ${Math.round(ms)} ms after Redis answered`,
  );
  await allServe();
  expect(await fleet.ledgerCharged()).toBe(fleet.served);
  // Subscriptions came back with the connection: a key deleted on one instance stops working on all of them at once.
  expect((await fleet.instances[0]!.handle(`/api_keys?id=${key.id}`, { method: 'DELETE' })).status).toBe(200);
  await within(2_000, async () => {
    for (const inst of fleet.instances)
      if ((await inst.handle('/api_keys/rate_limits', { headers: { authorization: `Bearer ${key.secret}` } })).status !== 401) return false;
    return true;
  });
}

describe('redis outages', () => {
  test('a Redis that stops answering (paused) gets 503 within the command timeout, and the link is rebuilt after', async () => {
    await allServe();
    redis.pause();
    try {
      await allRefuse(2_000);
    } finally {
      redis.resume();
    }
    await within(5_000, async () => (await fleet.chat(0)).status === 200);
    await allServe();
    expect(await fleet.ledgerCharged()).toBe(fleet.served);
  }, 20_000);

  test('a 5 s outage: 503 + Retry-After throughout, everyone serves again within 5 s, nothing charged for refusals', async () => {
    await outage(5);
  }, 30_000);

  test('a 90 s outage: the same, with no restart of svc', async () => {
    await outage(90);
  }, 150_000);
});
