import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import type { Wallet } from 'ethers';
import { accounts } from '../../src/db/schema';
import { startTestApp, type TestApp } from '../helpers/app';
import { BACKENDS, EMBEDDED } from '../helpers/backends';
import { newPayer, signedTopUp, startPaymentsApp, topUpRequest } from '../x402/helpers';

const chat = (t: TestApp, key: string, maxTokens = 16) =>
  t.request('/chat/completions', {
    method: 'POST',
    key,
    json: { model: 'llama-3.3-70b', messages: [{ role: 'user', content: 'hello' }], max_tokens: maxTokens },
  });

/** A web3 key of `wallet` through GET and POST /api_keys/generate_web3_key. */
async function web3Key(t: TestApp, wallet: Wallet, extra: Record<string, unknown> = {}) {
  const token = (await (await t.request('/api_keys/generate_web3_key', { key: null })).json()).data.token as string;
  const res = await t.request('/api_keys/generate_web3_key', {
    method: 'POST',
    key: null,
    json: { apiKeyType: 'INFERENCE', address: wallet.address, token, signature: await wallet.signMessage(token), ...extra },
  });
  expect(res.status).toBe(200);
  return (await res.json()).data.apiKey as string;
}

describe.each(BACKENDS)('one account, every balance on $name', (backend) => {
  let s: Awaited<ReturnType<typeof startPaymentsApp>>;
  const payer = newPayer();
  const limited = newPayer();
  beforeAll(async () => {
    s = await startPaymentsApp(backend, {}, { wallets: { web3Keys: { allowList: [payer.wallet.address, limited.wallet.address] } } });
    for (const p of [payer, limited]) {
      const { header } = await signedTopUp(s.t, p.account, 5);
      expect((await topUpRequest(s.t, { header })).status).toBe(200);
    }
  });
  afterAll(() => s.close());

  const usdcOf = async (address: string) => {
    const [row] = await s.t.deps.storage.db.select().from(accounts).where(eq(accounts.walletAddress, address.toLowerCase()));
    await s.t.deps.meter.flush();
    return (await s.t.deps.meter.balances(row!.id)).USDC ?? 0;
  };

  test('a web3 key of a wallet that topped up USDC spends that USDC', async () => {
    const key = await web3Key(s.t, payer.wallet);
    const res = await chat(s.t, key);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-svc-balance-usd')).toBe('0.000000');
    await res.arrayBuffer();
    const usdc = await usdcOf(payer.account.address);
    expect(usdc).toBeLessThan(5_000_000);
    expect(usdc).toBeGreaterThan(4_990_000);
  });

  test("USDC spent by a key counts against the key's USD consumption limit", async () => {
    const key = await web3Key(s.t, limited.wallet, { consumptionLimit: { usd: 0.001 } });
    const res = await chat(s.t, key, 2_000);
    expect(res.status).toBe(402);
    expect((await res.json()).error).toContain('API key USD spend limit exceeded');
    expect(await usdcOf(limited.account.address)).toBe(5_000_000);
  });
});

describe('the payment order is the operator’s', () => {
  let s: Awaited<ReturnType<typeof startPaymentsApp>>;
  const payer = newPayer();
  beforeAll(async () => {
    s = await startPaymentsApp(
      EMBEDDED,
      {},
      { billing: { paymentOrder: { apiKey: ['USD'] } }, wallets: { web3Keys: { allowList: [payer.wallet.address] } } },
    );
    const { header } = await signedTopUp(s.t, payer.account, 5);
    expect((await topUpRequest(s.t, { header })).status).toBe(200);
  });
  afterAll(() => s.close());

  test('with billing.paymentOrder.apiKey ["USD"], the web3 key does not spend the USDC', async () => {
    const res = await chat(s.t, await web3Key(s.t, payer.wallet));
    expect(res.status).toBe(402);
    expect((await res.json()).error).toContain('Insufficient USD or Diem balance');
  });
});

describe('web3 keys on a default start', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  test('without staking or an allow list, the flow says web3 keys are not enabled here and how to enable them', async () => {
    // The GET still issues a token, as the reference's contract says; redeeming it is refused.
    const get = await t.request('/api_keys/generate_web3_key', { key: null });
    expect(get.status).toBe(200);
    const token = (await get.json()).data.token as string;
    const { wallet } = newPayer();
    const post = await t.request('/api_keys/generate_web3_key', {
      method: 'POST',
      key: null,
      json: { apiKeyType: 'INFERENCE', address: wallet.address, token, signature: await wallet.signMessage(token) },
    });
    expect(post.status).toBe(403);
    const { error } = await post.json();
    expect(error).toStartWith('Web3 API keys are not enabled on this deployment');
    expect(error).toContain('wallets.web3Keys.staking');
    expect(error).toContain('wallets.web3Keys.allowList');
    expect(error).not.toContain('staked SVC');
  });

  test('with an allow list alone, a wallet not on it is told so, not about staking', async () => {
    const listed = newPayer();
    const app = await startTestApp({ config: { wallets: { web3Keys: { allowList: [listed.wallet.address] } } } });
    try {
      const { wallet } = newPayer();
      const token = (await (await app.request('/api_keys/generate_web3_key', { key: null })).json()).data.token as string;
      const res = await app.request('/api_keys/generate_web3_key', {
        method: 'POST',
        key: null,
        json: { apiKeyType: 'INFERENCE', address: wallet.address, token, signature: await wallet.signMessage(token) },
      });
      expect(res.status).toBe(400);
      const body = await res.json();
      expect(body.error).toContain("not on this deployment's allow list");
      expect(body.details.address._errors[0]).toContain('allow list');
      expect(await web3Key(app, listed.wallet)).toMatch(/^svc_/);
    } finally {
      await app.close();
    }
  });
});
