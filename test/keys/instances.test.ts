import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { Elysia } from 'elysia';
import { Wallet } from 'ethers';
import { createApp } from '../../src/app';
import { hashSecret } from '../../src/auth/api-keys';
import { KEY_INVALIDATION_CHANNEL } from '../../src/auth/key-cache';
import { parseWalletsConfig } from '../../src/auth/wallet-config';
import { createDeps } from '../../src/boot';
import type { AppDeps } from '../../src/deps';
import { pipelineStages } from '../../src/gates';
import { requestIdGate } from '../../src/gates/request-id';
import { errorHandler } from '../../src/http/error-handler';
import { createRedisStore } from '../../src/kv/redis';
import { keyRoutes } from '../../src/routes/keys';
import { startTestApp, type TestApp } from '../helpers/app';
import { BACKENDS } from '../helpers/backends';

describe.each(BACKENDS)('two instances sharing one database and KV on $name', (backend) => {
  let a: TestApp;
  let bDeps: AppDeps;
  let b: ReturnType<typeof createApp>;
  const closers: (() => Promise<void>)[] = [];

  const wallet = Wallet.createRandom();

  beforeAll(async () => {
    a = await startTestApp({ backend, config: { wallets: { web3Keys: { allowList: [wallet.address] } } } });
    // Instance B: its own key cache and (for Redis) its own connections, same database and prefix.
    const kv =
      a.deps.kv.backend === 'redis' ? await createRedisStore(process.env.REDIS_URL as string, { prefix: a.deps.kv.prefix }) : a.deps.kv;
    bDeps = await createDeps(a.deps.config, { storage: a.deps.storage, kv });
    b = createApp(bDeps);
    closers.push(() => bDeps.keys.close());
    if (kv !== a.deps.kv) closers.push(() => kv.close());
  });
  afterAll(async () => {
    for (const close of closers) await close();
    await a.close();
  });

  const onB = (path: string, key: string, init: RequestInit = {}) =>
    b.handle(new Request(`http://localhost/api/v1${path}`, { ...init, headers: { authorization: `Bearer ${key}`, ...init.headers } }));

  /** Resolves when B's KV connection has delivered the next invalidation (B's cache listener ran first). */
  async function nextInvalidationOnB() {
    let stop: () => Promise<void> = async () => {};
    const delivered = new Promise<number>((resolve) => {
      void bDeps.kv.subscribe(KEY_INVALIDATION_CHANNEL, () => resolve(performance.now())).then((s) => (stop = s));
    });
    await Bun.sleep(0);
    return { delivered, stop: () => stop() };
  }

  test('a key deleted on A stops working on B as soon as the invalidation arrives', async () => {
    const created = await (
      await a.request('/api_keys', { method: 'POST', json: { apiKeyType: 'INFERENCE', description: 'shared' } })
    ).json();
    const secret: string = created.data.apiKey;
    expect((await onB('/models', secret)).status).toBe(200); // now cached on B
    const wait = await nextInvalidationOnB();
    const start = performance.now();
    expect((await a.request(`/api_keys?id=${created.data.id}`, { method: 'DELETE' })).status).toBe(200);
    const deliveredAt = await wait.delivered;
    await wait.stop();
    expect((await onB('/models', secret)).status).toBe(401);
    expect((await a.request('/models', { key: secret })).status).toBe(401);
    expect(deliveredAt - start).toBeLessThan(1_000);
    if (process.env.SVC_TEST_VERBOSE)
      console.log(`invalidation delivered to B ${(deliveredAt - start).toFixed(2)} ms after DELETE was sent`);
  });

  test('an update on A reaches the cached copy on B', async () => {
    const created = await (
      await a.request('/api_keys', { method: 'POST', json: { apiKeyType: 'INFERENCE', description: 'limits' } })
    ).json();
    const hash = hashSecret(created.data.apiKey);
    expect((await bDeps.keys.lookup(hash))?.limits.usd).toBeNull();
    const wait = await nextInvalidationOnB();
    await a.request('/api_keys', { method: 'PATCH', json: { id: created.data.id, consumptionLimit: { usd: 2.5 } } });
    await wait.delivered;
    await wait.stop();
    expect((await bDeps.keys.lookup(hash))?.limits.usd).toBe(2_500_000);
  });

  test('a web3 token issued by A is redeemed on B (shared token secret without SVC_TOKEN_SECRET)', async () => {
    const token: string = (await (await a.request('/api_keys/generate_web3_key', { key: null })).json()).data.token;
    const res = await b.handle(
      new Request('http://localhost/api/v1/api_keys/generate_web3_key', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ apiKeyType: 'INFERENCE', address: wallet.address, token, signature: await wallet.signMessage(token) }),
      }),
    );
    expect(res.status).toBe(200);
    expect((await res.json()).data.apiKey).toStartWith('svc_');
  });

  test('concurrent deletes of one key across both instances: exactly one 200, no 500', async () => {
    const created = await (await a.request('/api_keys', { method: 'POST', json: { apiKeyType: 'INFERENCE', description: 'race' } })).json();
    const path = `/api_keys?id=${created.data.id}`;
    const results = await Promise.all([
      ...Array.from({ length: 4 }, () => a.request(path, { method: 'DELETE' })),
      ...Array.from({ length: 4 }, () => onB(path, a.adminKey, { method: 'DELETE' })),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 400, 400, 400, 400, 400, 400, 400]);
  });
});

describe('routing', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  test('static /api_keys/* paths of other route families win over /api_keys/:id', async () => {
    const stages = pipelineStages(t.deps, undefined);
    const app = new Elysia()
      .use(requestIdGate)
      .use(errorHandler(t.deps.log))
      .use(keyRoutes(t.deps, stages, parseWalletsConfig(t.deps.config)))
      .get('/api_keys/rate_limits', () => ({ from: 'rate_limits' }))
      .get('/api_keys/rate_limits/log', () => ({ from: 'log' }))
      .get('/api_keys/rate_limit_logs', () => ({ from: 'logs' }));
    const get = async (path: string) =>
      (await app.handle(new Request(`http://localhost${path}`, { headers: { authorization: `Bearer ${t.adminKey}` } }))).json();
    expect(await get('/api_keys/rate_limits')).toEqual({ from: 'rate_limits' });
    expect(await get('/api_keys/rate_limits/log')).toEqual({ from: 'log' });
    expect(await get('/api_keys/rate_limit_logs')).toEqual({ from: 'logs' });
    expect((await get('/api_keys/generate_web3_key')).data.token).toBeString();
    expect((await get('/api_keys/00000000-0000-4000-8000-000000000000')).error).toContain('could not be found');
  });
});
