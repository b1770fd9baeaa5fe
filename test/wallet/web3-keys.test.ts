import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { Wallet } from 'ethers';
import { accounts } from '../../src/db/schema';
import { startRpcFixture, type RpcFixture } from '../fixtures/rpc-evm';
import { startTestApp, type TestApp } from '../helpers/app';
import { BACKENDS } from '../helpers/backends';

const STAKING_TOKEN = '0x1111111111111111111111111111111111111111';

describe.each(BACKENDS)('web3 API keys on $name', (backend) => {
  let t: TestApp;
  let rpc: RpcFixture;
  const allowed = Wallet.createRandom();
  const clock = { now: Date.now() };

  beforeAll(async () => {
    rpc = startRpcFixture(STAKING_TOKEN);
    t = await startTestApp({
      backend,
      now: () => clock.now,
      config: {
        wallets: {
          web3Keys: {
            allowList: [allowed.address],
            staking: { rpcUrl: rpc.url, tokenAddress: STAKING_TOKEN, minBalance: '1000', symbol: 'SVC', network: 'Base', timeoutMs: 300 },
          },
        },
      },
    });
  });
  afterAll(async () => {
    await t.close();
    rpc.close();
  });

  async function getToken(): Promise<string> {
    const res = await t.request('/api_keys/generate_web3_key', { key: null });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.success).toBe(true);
    return body.data.token;
  }
  const post = (json: Record<string, unknown>) => t.request('/api_keys/generate_web3_key', { method: 'POST', key: null, json });
  async function signed(wallet: { address: string; signMessage(m: string): Promise<string> }, extra: Record<string, unknown> = {}) {
    const token = await getToken();
    return { apiKeyType: 'INFERENCE', address: wallet.address, token, signature: await wallet.signMessage(token), ...extra };
  }
  async function refusedWith(res: Response, status: number, message: string, field?: string) {
    expect(res.status).toBe(status);
    const body = await res.json();
    expect(body.error).toContain(message);
    if (field) expect(body.details[field]._errors[0]).toContain(message);
  }

  test('a staked wallet signs the token and gets a working key on its wallet account', async () => {
    const wallet = Wallet.createRandom();
    rpc.balances.set(wallet.address.toLowerCase(), 5000n);
    const res = await post(
      await signed(wallet, { apiKeyType: 'ADMIN', consumptionLimit: { usd: 3 }, limitPeriod: 'MONTH', description: 'my bot' }),
    );
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toEqual({
      success: true,
      data: {
        apiKey: expect.stringMatching(/^svc_/),
        apiKeyType: 'ADMIN',
        consumptionLimit: { usd: 3, diem: null, vcu: null },
        limitPeriod: 'MONTH',
        description: 'my bot',
        expiresAt: null,
        id: expect.any(String),
      },
    });
    expect(rpc.calls.at(-1)).toEqual({ to: STAKING_TOKEN, data: `0x70a08231${'0'.repeat(24)}${wallet.address.slice(2).toLowerCase()}` });
    // The key works: it lists itself, on the wallet's own account.
    const list = await (await t.request('/api_keys', { key: body.data.apiKey })).json();
    expect(list.data.map((k: { id: string }) => k.id)).toEqual([body.data.id]);
    const [account] = await t.deps.storage.db.select().from(accounts).where(eq(accounts.walletAddress, wallet.address.toLowerCase()));
    expect(account?.kind).toBe('wallet');
    // A second key for the same wallet lands on the same account.
    const second = await (await post(await signed(wallet))).json();
    expect(second.data.description).toBe('Web3 API Key');
    expect((await (await t.request('/api_keys', { key: body.data.apiKey })).json()).data).toHaveLength(2);
    // INFERENCE web3 keys work on inference routes and not on ADMIN ones.
    expect((await t.request('/models', { key: second.data.apiKey })).status).toBe(200);
    expect((await t.request('/api_keys', { key: second.data.apiKey })).status).toBe(403);
  });

  test('allow-listed wallets need no stake (and the RPC node is not asked)', async () => {
    const before = rpc.calls.length;
    const res = await post(await signed(allowed));
    expect(res.status).toBe(200);
    expect(rpc.calls.length).toBe(before);
  });

  test('a used token is refused, also when two redemptions race', async () => {
    const wallet = Wallet.createRandom();
    rpc.balances.set(wallet.address.toLowerCase(), 1000n);
    const body = await signed(wallet);
    const results = await Promise.all([post(body), post(body), post(body)]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 400, 400]);
    await refusedWith(await post(body), 400, 'JWT has already been used', 'token');
  });

  test('expired, forged and malformed tokens are refused with the reference messages', async () => {
    const wallet = Wallet.createRandom();
    const body = await signed(wallet);
    clock.now += 16 * 60_000;
    try {
      await refusedWith(await post(body), 400, 'JWT has expired', 'token');
    } finally {
      clock.now -= 16 * 60_000;
    }
    const token = await getToken();
    const [h, p, s] = token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...claims, exp: claims.exp + 3600 })).toString('base64url')}.${s}`;
    await refusedWith(
      await post({ ...body, token: forged, signature: await wallet.signMessage(forged) }),
      400,
      'JWT signature is invalid',
      'token',
    );
    await refusedWith(
      await post({ ...body, token: 'not-a-jwt', signature: await wallet.signMessage('not-a-jwt') }),
      400,
      'JWT is malformed',
      'token',
    );
  });

  test('a signature by another wallet, a garbage signature and a bad address are refused', async () => {
    const wallet = Wallet.createRandom();
    rpc.balances.set(wallet.address.toLowerCase(), 1000n);
    const token = await getToken();
    const other = await Wallet.createRandom().signMessage(token);
    await refusedWith(
      await post({ apiKeyType: 'INFERENCE', address: wallet.address, token, signature: other }),
      400,
      'Wallet signature does not match',
      'signature',
    );
    await refusedWith(
      await post({ apiKeyType: 'INFERENCE', address: wallet.address, token, signature: '0xdeadbeef' }),
      400,
      'Wallet signature does not match',
      'signature',
    );
    await refusedWith(
      await post({ apiKeyType: 'INFERENCE', address: '0x12345', token, signature: other }),
      400,
      'Invalid wallet address',
      'address',
    );
    // The failed attempts did not burn the token: the right signature still redeems it.
    const ok = await post({ apiKeyType: 'INFERENCE', address: wallet.address, token, signature: await wallet.signMessage(token) });
    expect(ok.status).toBe(200);
  });

  test('a wallet without enough stake is refused; an unreachable RPC node is a retryable 503', async () => {
    const wallet = Wallet.createRandom();
    rpc.balances.set(wallet.address.toLowerCase(), 999n);
    const body = await signed(wallet);
    await refusedWith(await post(body), 400, 'Wallet has no staked SVC on Base', 'address');
    rpc.balances.set(wallet.address.toLowerCase(), 1000n);
    for (const mode of ['http500', 'rpc-error', 'hang'] as const) {
      rpc.mode = mode;
      try {
        const res = await post(body);
        expect(res.status).toBe(503);
        expect((await res.json()).error).toContain('retry');
      } finally {
        rpc.mode = 'ok';
      }
    }
    expect((await post(body)).status).toBe(200);
  });

  test('required fields and their values are validated (400 naming the field)', async () => {
    const wallet = Wallet.createRandom();
    const body = await signed(wallet);
    for (const field of ['apiKeyType', 'address', 'signature', 'token']) {
      const rest: Record<string, unknown> = { ...body };
      delete rest[field];
      const res = await post(rest);
      expect(res.status).toBe(400);
      expect((await res.json()).details[field]).toBeDefined();
    }
    const res = await post({ ...body, limitPeriod: 'DAILY' });
    expect((await res.json()).details.limitPeriod).toBeDefined();
    await refusedWith(await post({ ...body, expiresAt: '2001-01-01' }), 400, 'future', 'expiresAt');
  });
});
