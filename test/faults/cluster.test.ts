import { afterAll, beforeAll, expect, test } from 'bun:test';
import { dbSize, ownRedisCluster } from '../helpers/redis-server';
import { startFleet, type Fleet } from './instances';

// A 3-master Redis Cluster of this test's own (ports 7003-7005); .ci/run runs whole suites on another at 7000-7002.
const PORTS = [7003, 7004, 7005];
let cluster: Awaited<ReturnType<typeof ownRedisCluster>>;
let fleet: Fleet;

beforeAll(async () => {
  cluster = await ownRedisCluster(PORTS);
  // REDIS_URL names one node; svc finds out it is a cluster and learns the others.
  fleet = await startFleet({ redisUrl: cluster.url, n: 2 });
}, 30_000);

afterAll(async () => {
  await fleet?.close();
  await cluster?.dispose();
});

test('on a 3-master cluster, authenticated chat, streams, keys and billing work from two instances', async () => {
  expect(fleet.instances[0]!.deps.kv.redis?.topology).toBe('cluster');
  for (let i = 0; i < 6; i++) {
    const r = await fleet.chat(i % 2, { stream: i % 3 === 0 });
    expect(r).toMatchObject({ status: 200, error: null });
    expect(r.costMicros).toBeGreaterThan(0);
  }
  // A new INFERENCE key with a spend limit (its counter shares the account's slot) works on the other instance.
  const created = await fleet.instances[0]!.handle('/api_keys', {
    method: 'POST',
    json: { apiKeyType: 'INFERENCE', description: 'cluster', consumptionLimit: { usd: 1 } },
  });
  expect(created.status).toBe(200);
  const secret = (await created.json()).data.apiKey as string;
  const chat = await fleet.instances[1]!.handle('/chat/completions', {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}` },
    json: { model: 'fix', messages: [{ role: 'user', content: 'x'.repeat(40) }], max_tokens: 5 },
  });
  expect(chat.status).toBe(200);
  const cost = Math.round((await chat.json()).cost.usd * 1e6);
  expect(cost).toBeGreaterThan(0);
  // The live balance, the ledger and the spend all agree.
  const balance = await (await fleet.instances[1]!.handle('/billing/balance')).json();
  expect(Math.round(balance.balances.usd * 1e6)).toBe(1_000_000_000 - fleet.served - cost);
  expect(await fleet.ledgerCharged()).toBe(fleet.served + cost);
  // Keys went to more than one master (rate limits, balances and key counters in different slots).
  expect(PORTS.filter((p) => dbSize(p) > 0).length).toBeGreaterThan(1);
}, 30_000);
