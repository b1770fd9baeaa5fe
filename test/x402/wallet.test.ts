import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { x402HTTPClient, x402Client } from '@x402/core/client';
import { decodePaymentRequiredHeader } from '@x402/core/http';
import { wrapFetchWithSIWx } from '@x402/extensions/sign-in-with-x';
import { eq } from 'drizzle-orm';
import { createApp } from '../../src/app';
import { createDeps } from '../../src/boot';
import { walletPayments } from '../../src/db/schema';
import { markSettled } from '../../src/x402/payments-store';
import { recoverPayments } from '../../src/x402/recovery';
import { x402Of } from '../../src/x402/service';
import { BACKENDS } from '../helpers/backends';
import { evmSignIn } from '../wallet/sign';
import { appFetch, newPayer, ORIGIN, PAY_TO_BASE, signedGet, signedTopUp, startPaymentsApp, topUpRequest } from './helpers';

const MODEL = 'llama-3.3-70b';
const chatBody = JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hello' }], max_tokens: 16 });

describe.each(BACKENDS)('wallet balance, transactions and chats on $name', (backend) => {
  let s: Awaited<ReturnType<typeof startPaymentsApp>>;
  beforeAll(async () => {
    s = await startPaymentsApp(backend);
  });
  afterAll(() => s.close());

  async function topUp(amountUsd = 5) {
    const payer = newPayer();
    const { header } = await signedTopUp(s.t, payer.account, amountUsd);
    const res = await topUpRequest(s.t, { header });
    expect(res.status).toBe(200);
    return { ...payer, paymentId: (await res.json()).data.paymentId as string };
  }
  const chat = async (wallet: ReturnType<typeof newPayer>['wallet']) =>
    s.t.request('/chat/completions', {
      method: 'POST',
      key: null,
      headers: {
        'content-type': 'application/json',
        'SIGN-IN-WITH-X': await evmSignIn(wallet as never, { domain: 'localhost', uri: ORIGIN }),
      },
      body: chatBody,
    });

  test('a chat paid from the topped-up balance carries X-Balance-Remaining; transactions list the top-up and the charge', async () => {
    const { account, wallet, paymentId } = await topUp(6);
    const res = await chat(wallet);
    expect(res.status).toBe(200);
    const remaining = Number(res.headers.get('x-balance-remaining'));
    expect(remaining).toBeGreaterThan(5.9);
    expect(remaining).toBeLessThan(6);
    await res.arrayBuffer();

    const list = await signedGet(s.t, `/x402/transactions/${account.address}`, wallet);
    expect(list.status).toBe(200);
    const body = await list.json();
    expect(body.success).toBe(true);
    expect(body.data.walletAddress).toBe(account.address);
    const [charge, credit] = body.data.transactions;
    expect(credit).toEqual({
      id: paymentId,
      amount: 6,
      balanceAfter: 6,
      type: 'TOP_UP',
      createdAt: expect.any(String),
      requestId: null,
      modelId: null,
    });
    expect(charge).toMatchObject({ type: 'CHARGE', modelId: MODEL, requestId: res.headers.get('cf-ray') });
    expect(charge.amount).toBeLessThan(0);
    expect(charge.balanceAfter).toBeCloseTo(6 + charge.amount, 9);
    expect(body.data.currentBalance).toBe(charge.balanceAfter);
    expect(body.data.pagination).toEqual({ limit: 50, offset: 0, hasMore: false });

    const page = await (await signedGet(s.t, `/x402/transactions/${account.address}?limit=1`, wallet)).json();
    expect(page.data.transactions).toEqual([charge]);
    expect(page.data.pagination).toEqual({ limit: 1, offset: 0, hasMore: true });
    const second = await (await signedGet(s.t, `/x402/transactions/${account.address}?limit=1&offset=1`, wallet)).json();
    expect(second.data.transactions).toEqual([credit]);
    expect(second.data.pagination.hasMore).toBe(false);
  });

  test('balance and transactions need the same wallet: 403 X402_WALLET_MISMATCH for another wallet or an API key', async () => {
    const { account } = await topUp();
    const stranger = newPayer();
    const other = await signedGet(s.t, `/x402/balance/${account.address}`, stranger.wallet);
    expect(other.status).toBe(403);
    expect(await other.json()).toEqual({
      error: 'X402_WALLET_MISMATCH',
      message: 'Sign in (SIGN-IN-WITH-X) with the wallet whose balance you ask for',
    });
    const byKey = await s.t.request(`/x402/transactions/${account.address}`);
    expect(byKey.status).toBe(403);
  });

  test('without credentials, balance and transactions answer the sign-in challenge, and wrapFetchWithSIWx alone reads them', async () => {
    const { account } = await topUp(7);
    const bare = await s.t.request(`/x402/balance/${account.address}`, { key: null });
    expect(bare.status).toBe(402);
    const required = decodePaymentRequiredHeader(bare.headers.get('payment-required') as string);
    expect(await bare.json()).toEqual(Object.fromEntries(Object.entries(required)));
    expect(required.accepts.map((a) => a.network)).toEqual(['eip155:8453']);
    expect(required.extensions?.['sign-in-with-x']).toMatchObject({
      info: { domain: 'localhost', uri: `${ORIGIN}/api/v1/x402/balance/${account.address}` },
      supportedChains: [{ chainId: 'eip155:8453', type: 'eip191' }, { type: 'ed25519' }],
    });
    const signIn = wrapFetchWithSIWx(appFetch(s.t), account);
    const balance = await signIn(`${ORIGIN}/api/v1/x402/balance/${account.address}`);
    expect(balance.status).toBe(200);
    expect((await balance.json()).data).toMatchObject({ walletAddress: account.address, balanceUsd: 7 });
    const list = await signIn(`${ORIGIN}/api/v1/x402/transactions/${account.address}?limit=5`);
    expect(list.status).toBe(200);
    expect((await list.json()).data.transactions).toEqual([expect.objectContaining({ type: 'TOP_UP', amount: 7 })]);
    // Another wallet's balance: the sign-in is made, and refused as the wrong wallet.
    const other = await signIn(`${ORIGIN}/api/v1/x402/balance/${newPayer().account.address}`);
    expect(other.status).toBe(403);
    // A Solana wallet's challenge offers Solana first, so a Solana signer signs for it.
    const solana = await s.t.request('/x402/balance/9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin', { key: null });
    const solanaRequired = decodePaymentRequiredHeader(solana.headers.get('payment-required') as string);
    expect(solanaRequired.accepts.map((a) => a.network)).toEqual(['solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp']);
  });

  test('bad path and query values are 400s naming the field', async () => {
    const { wallet, account } = newPayer();
    const badAddress = await signedGet(s.t, '/x402/balance/0x1234', wallet);
    expect(badAddress.status).toBe(400);
    expect((await badAddress.json()).error).toContain('walletAddress');
    for (const query of ['limit=0', 'limit=101', 'offset=-1']) {
      const res = await signedGet(s.t, `/x402/transactions/${account.address}?${query}`, wallet);
      expect(res.status).toBe(400);
      expect((await res.json()).error).toContain(query.split('=')[0] as string);
    }
  });

  test('a new wallet has a zero balance it cannot consume', async () => {
    const { wallet, account } = newPayer();
    const res = await signedGet(s.t, `/x402/balance/${account.address}`, wallet);
    expect((await res.json()).data).toEqual({
      walletAddress: account.address,
      balanceUsd: 0,
      canConsume: false,
      minimumTopUpUsd: 5,
      suggestedTopUpUsd: 10,
    });
  });

  test('a signed-in wallet without balance gets 402 variant 3 with every required field, readable by @x402/fetch', async () => {
    const { wallet } = newPayer();
    const res = await chat(wallet);
    expect(res.status).toBe(402);
    const body = await res.json();
    expect(body).toMatchObject({
      error: 'Payment required',
      code: 'PAYMENT_REQUIRED',
      reason: 'insufficient_balance',
      minimumTopUpUsd: 5,
      suggestedTopUpUsd: 5,
      supportedTokens: ['USDC'],
      supportedChains: ['base', 'solana'],
      topUpInstructions: {
        receiverWallet: PAY_TO_BASE,
        tokenAddress: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
        tokenDecimals: 6,
        network: 'eip155:8453',
        minimumAmountUsd: 5,
      },
      siwxChallenge: {
        info: { domain: 'localhost', uri: `${ORIGIN}/api/v1`, version: '1', statement: 'Sign in to svc API' },
        supportedChains: [
          { chainId: 'eip155:8453', type: 'eip191' },
          { chainId: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', type: 'ed25519' },
        ],
      },
    });
    expect(body.siwxChallenge.info.nonce).toMatch(/^[0-9a-f]{16}$/);
    const client = new x402HTTPClient(new x402Client());
    const required = client.getPaymentRequiredResponse((name) => res.headers.get(name));
    expect(required).toMatchObject({ x402Version: 2, accepts: [{ network: 'eip155:8453', payTo: PAY_TO_BASE, amount: '5000000' }] });
    expect(required.resource.url).toBe(`${ORIGIN}/api/v1/x402/top-up`);
  });

  test('no credentials on an inference route: the discovery 402 (variant 2) priced for the call, with PAYMENT-REQUIRED; other routes keep the 401', async () => {
    const res = await s.t.request('/chat/completions', {
      method: 'POST',
      key: null,
      headers: { 'content-type': 'application/json' },
      body: chatBody,
    });
    expect(res.status).toBe(402);
    const body = await res.json();
    expect(body).toMatchObject({
      x402Version: 2,
      resource: { url: `${ORIGIN}/api/v1/chat/completions`, mimeType: 'application/json' },
      extensions: {
        'sign-in-with-x': {
          info: { domain: 'localhost', uri: `${ORIGIN}/api/v1/chat/completions`, version: '1' },
          supportedChains: [
            { chainId: 'eip155:8453', type: 'eip191' },
            { chainId: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', type: 'ed25519' },
          ],
        },
      },
      authOptions: {
        apiKey: { header: 'Authorization' },
        x402Wallet: { header: 'SIGN-IN-WITH-X', legacyHeader: 'X-Sign-In-With-X', topUp: 'POST /api/v1/x402/top-up' },
      },
    });
    expect(typeof body.error).toBe('string');
    // The call's reservation is far below the smallest payment for a call, 0.25 USD.
    expect(body.accepts[0]).toMatchObject({ scheme: 'exact', network: 'eip155:8453', payTo: PAY_TO_BASE, amount: '250000' });
    expect(decodePaymentRequiredHeader(res.headers.get('payment-required') as string)).toEqual(body);
    const client = new x402HTTPClient(new x402Client());
    expect(client.getPaymentRequiredResponse((name) => res.headers.get(name)).accepts).toHaveLength(body.accepts.length);
    expect((await s.t.request('/api_keys/rate_limits', { key: null })).status).toBe(401);
    // Every inference route (the metered ones) answers the same way.
    const embeddings = await s.t.request('/embeddings', {
      method: 'POST',
      key: null,
      json: { model: 'text-embedding-bge-m3', input: 'hi' },
    });
    expect(embeddings.status).toBe(402);
    expect((await embeddings.json()).resource.url).toBe(`${ORIGIN}/api/v1/embeddings`);
  });

  test("@x402/extensions' wrapFetchWithSIWx answers the discovery 402 with its own SIGN-IN-WITH-X header and the chat is paid", async () => {
    const { account } = await topUp();
    const signIn = wrapFetchWithSIWx(appFetch(s.t), account);
    const res = await signIn(`${ORIGIN}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: chatBody,
    });
    expect(res.status).toBe(200);
    expect(Number(res.headers.get('x-balance-remaining'))).toBeLessThan(5);
    expect((await res.json()).object).toBe('chat.completion');
  });
});

describe.each(BACKENDS)('payment recovery on $name', (backend) => {
  let s: Awaited<ReturnType<typeof startPaymentsApp>>;
  beforeAll(async () => {
    s = await startPaymentsApp(backend);
  });
  afterAll(() => s.close());

  const rowOf = async (payer: string) =>
    (await s.t.deps.storage.db.select().from(walletPayments).where(eq(walletPayments.payer, payer.toLowerCase())))[0];

  /** A top-up whose settlement timed out: its row is left pending. */
  async function pendingTopUp() {
    const payer = newPayer();
    const { header } = await signedTopUp(s.t, payer.account);
    s.facilitator.behaviour.settle = 'hang';
    expect((await topUpRequest(s.t, { header })).status).toBe(504);
    s.facilitator.behaviour.settle = 'ok';
    const row = (await rowOf(payer.account.address))!;
    expect(row.status).toBe('pending');
    return { ...payer, row };
  }

  test('a settlement whose answer was lost is settled again and credited once by recovery', async () => {
    const { account, wallet } = await pendingTopUp();
    const deps = { db: s.t.deps.storage.db, log: s.t.deps.log, topUp: x402Of(s.t.deps).topUp, staleMs: 0 };
    expect(await recoverPayments(deps)).toBe(1);
    expect((await rowOf(account.address))?.status).toBe('credited');
    expect(await recoverPayments(deps)).toBe(0);
    const balance = await (await signedGet(s.t, `/x402/balance/${account.address}`, wallet)).json();
    expect(balance.data.balanceUsd).toBe(5);
  });

  test('a crash between settlement and credit is credited at the next start, once', async () => {
    const { account, wallet, row } = await pendingTopUp();
    // The facilitator confirmed, and the process died before the credit's transaction.
    await markSettled(s.t.deps.storage.db, row.paymentId, '0xfeed');
    const restarted = await createDeps(s.t.deps.config, { storage: s.t.deps.storage, kv: s.t.deps.kv });
    createApp(restarted);
    expect(await x402Of(restarted).recovered).toBe(1);
    await restarted.meter.close();
    const again = await createDeps(s.t.deps.config, { storage: s.t.deps.storage, kv: s.t.deps.kv });
    createApp(again);
    expect(await x402Of(again).recovered).toBe(0);
    await again.meter.close();
    expect((await rowOf(account.address))?.status).toBe('credited');
    const balance = await (await signedGet(s.t, `/x402/balance/${account.address}`, wallet)).json();
    expect(balance.data.balanceUsd).toBe(5);
  });
});
