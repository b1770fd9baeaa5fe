import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { x402Client, x402HTTPClient } from '@x402/core/client';
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { createSIWxClientExtension } from '@x402/extensions/sign-in-with-x';
import { wrapFetchWithPayment } from '@x402/fetch';
import { and, eq } from 'drizzle-orm';
import type { PrivateKeyAccount } from 'viem/accounts';
import { accounts, ledgerLines, walletPayments } from '../../src/db/schema';
import { fixtureModel, fixtureProvider } from '../chat/helpers';
import { startUpstream, type FixtureUpstream } from '../fixtures/openai-upstream';
import { abuseGuardOf } from '../../src/gates/abuse-guard';
import { startTestApp } from '../helpers/app';
import { BACKENDS, EMBEDDED } from '../helpers/backends';
import { evmSignIn } from '../wallet/sign';
import { appFetch, newPayer, ORIGIN, startPaymentsApp } from './helpers';

const CHAT = `${ORIGIN}/api/v1/chat/completions`;
const chatBody = (maxTokens = 16) =>
  JSON.stringify({ model: 'fix-pay', messages: [{ role: 'user', content: 'hello' }], max_tokens: maxTokens });
const post = (body: string, headers: Record<string, string> = {}) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body,
});

describe.each(BACKENDS)('x402 pay-per-call on metered routes on $name', (backend) => {
  let s: Awaited<ReturnType<typeof startPaymentsApp>>;
  let up: FixtureUpstream;
  beforeAll(async () => {
    up = startUpstream('pay-per-call');
    s = await startPaymentsApp(backend, {}, { providers: [fixtureProvider('fx', up.url)], models: [fixtureModel('fix-pay', ['fx'])] });
  });
  afterAll(async () => {
    await s.close();
    await up.close();
  });

  /** The payer's wallet account id and its live USDC balance. */
  async function walletOf(address: string) {
    const [row] = await s.t.deps.storage.db.select().from(accounts).where(eq(accounts.walletAddress, address.toLowerCase()));
    if (!row) return { id: null, usdc: 0 };
    return { id: row.id, usdc: (await s.t.deps.meter.balances(row.id)).USDC ?? 0 };
  }
  const creditsOf = async (paymentId: string) =>
    s.t.deps.storage.db
      .select()
      .from(ledgerLines)
      .where(and(eq(ledgerLines.requestId, `x402:${paymentId}`), eq(ledgerLines.kind, 'TOP_UP')));
  /** `@x402/fetch` with nothing else: the client's default spend controls ($1 a payment). */
  const plainClient = (account: PrivateKeyAccount) =>
    wrapFetchWithPayment(appFetch(s.t), new x402Client().register('eip155:*', new ExactEvmScheme(account))) as typeof fetch;
  /** The discovery 402 of an anonymous chat, and a payment signed for its Base entry (not sent). */
  async function signedFor(account: PrivateKeyAccount, body = chatBody(), amount?: string) {
    const res = await appFetch(s.t)(CHAT, post(body));
    expect(res.status).toBe(402);
    const required = decodePaymentRequiredHeader(res.headers.get('payment-required') as string);
    const requirement = { ...(required.accepts.find((a) => a.network === 'eip155:8453') as PaymentRequirements) };
    if (amount) requirement.amount = amount;
    const partial = await new ExactEvmScheme(account).createPaymentPayload(2, requirement);
    const payload = { ...partial, accepted: requirement, resource: required.resource } as PaymentPayload;
    return { requirement, header: encodePaymentSignatureHeader(payload) };
  }

  test('@x402/fetch alone completes a chat: the 402 asks for what the call needs, the payment is credited, the chat served from it', async () => {
    const { account } = newPayer();
    const settles = s.facilitator.settleCalls.length;
    const res = await plainClient(account)(CHAT, post(chatBody()));
    expect(res.status).toBe(200);
    expect((await res.json()).object).toBe('chat.completion');
    const receipt = decodePaymentResponseHeader(res.headers.get('payment-response') as string);
    expect(receipt).toMatchObject({ success: true, network: 'eip155:8453', payer: account.address });
    expect(s.facilitator.settleCalls.length).toBe(settles + 1);
    expect(s.facilitator.settleCalls.at(-1)?.amount).toBe('250000');
    // The charge came out of the credit; the rest stays on the payer's wallet.
    const remaining = Number(res.headers.get('x-balance-remaining'));
    expect(remaining).toBeLessThanOrEqual(0.25);
    expect(remaining).toBeGreaterThan(0.249);
    await s.t.deps.meter.flush();
    const wallet = await walletOf(account.address);
    expect(wallet.usdc).toBeLessThan(250_000);
    expect(wallet.usdc).toBeGreaterThan(249_000);
    const [row] = await s.t.deps.storage.db.select().from(walletPayments).where(eq(walletPayments.payer, account.address.toLowerCase()));
    expect(row).toMatchObject({ status: 'credited', amountMicros: 250_000 });
    expect(await creditsOf(row!.paymentId)).toHaveLength(1);
  });

  test('with the sign-in extension the same client pays once, then spends from the balance', async () => {
    const { account } = newPayer();
    const client = new x402Client().register('eip155:*', new ExactEvmScheme(account));
    client.registerExtension(createSIWxClientExtension({ signers: [account] }));
    const pay = wrapFetchWithPayment(appFetch(s.t), new x402HTTPClient(client)) as typeof fetch;
    const settles = s.facilitator.settleCalls.length;
    const first = await pay(CHAT, post(chatBody()));
    expect(first.status).toBe(200);
    expect(first.headers.get('payment-response')).toBeTruthy();
    await first.arrayBuffer();
    const balances: number[] = [];
    for (let i = 0; i < 3; i++) {
      const next = await pay(CHAT, post(chatBody()));
      expect(next.status).toBe(200);
      expect(next.headers.get('payment-response')).toBeNull();
      balances.push(Number(next.headers.get('x-balance-remaining')));
      await next.arrayBuffer();
    }
    expect(s.facilitator.settleCalls.length).toBe(settles + 1);
    expect(balances[0]!).toBeGreaterThan(balances[2]!);
  });

  test('a signed-in wallet whose balance covers the call spends it; the payment it also sent is not settled', async () => {
    const { account, wallet } = newPayer();
    expect((await plainClient(account)(CHAT, post(chatBody()))).status).toBe(200);
    const { header } = await signedFor(account);
    const settles = s.facilitator.settleCalls.length;
    const res = await appFetch(s.t)(
      CHAT,
      post(chatBody(), {
        'PAYMENT-SIGNATURE': header,
        'SIGN-IN-WITH-X': await evmSignIn(wallet as never, { domain: 'localhost', uri: ORIGIN }),
      }),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('payment-response')).toBeNull();
    expect(s.facilitator.settleCalls.length).toBe(settles);
  });

  test("a payment with another wallet's sign-in is refused before anything is settled", async () => {
    const { header } = await signedFor(newPayer().account);
    const other = newPayer();
    const settles = s.facilitator.settleCalls.length;
    const res = await appFetch(s.t)(
      CHAT,
      post(chatBody(), {
        'PAYMENT-SIGNATURE': header,
        'SIGN-IN-WITH-X': await evmSignIn(other.wallet as never, { domain: 'localhost', uri: ORIGIN }),
      }),
    );
    expect(res.status).toBe(400);
    expect((await res.json()).message).toContain('signed-in wallet');
    expect(s.facilitator.settleCalls.length).toBe(settles);
  });

  test('a settled payment whose call then fails keeps its credit, says so, and is never charged or credited twice', async () => {
    const { account } = newPayer();
    const { header } = await signedFor(account);
    up.set({ status: 500 });
    let failed: Response;
    try {
      failed = await appFetch(s.t)(CHAT, post(chatBody(), { 'PAYMENT-SIGNATURE': header }));
    } finally {
      up.set({});
    }
    expect(failed.status).toBeGreaterThanOrEqual(500);
    const body = await failed.json();
    expect(typeof body.error).toBe('string');
    expect(body.payment).toMatchObject({ walletAddress: account.address, amountCredited: 0.25 });
    expect(body.payment.message).toContain('stays there');
    // The receipt is on the error answer too, so the client knows the payment went through.
    expect(decodePaymentResponseHeader(failed.headers.get('payment-response') as string).payer).toBe(account.address);
    expect(failed.headers.get('cf-ray')).toBeTruthy();
    await s.t.deps.meter.flush();
    expect((await walletOf(account.address)).usdc).toBe(250_000);
    // The same payment again: refused as used, nothing more credited.
    const again = await appFetch(s.t)(CHAT, post(chatBody(), { 'X-PAYMENT': header }));
    expect(again.status).toBe(409);
    expect((await again.json()).error).toBe('X402_PAYMENT_REPLAYED');
    expect((await walletOf(account.address)).usdc).toBe(250_000);
    expect(await creditsOf(body.payment.paymentId)).toHaveLength(1);
  });

  test('two concurrent calls with the same authorization are credited once', async () => {
    const { account } = newPayer();
    const { header } = await signedFor(account);
    up.set({ headerDelayMs: 200 });
    let results: Response[];
    try {
      results = await Promise.all(
        ['PAYMENT-SIGNATURE', 'X-402-Payment', 'X-PAYMENT'].map((name) => appFetch(s.t)(CHAT, post(chatBody(), { [name]: header }))),
      );
    } finally {
      up.set({});
    }
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 409, 409]);
    await Promise.all(results.map((r) => r.arrayBuffer()));
    const rows = await s.t.deps.storage.db.select().from(walletPayments).where(eq(walletPayments.payer, account.address.toLowerCase()));
    expect(rows).toHaveLength(1);
    expect(await creditsOf(rows[0]!.paymentId)).toHaveLength(1);
    await s.t.deps.meter.flush();
    const usdc = (await walletOf(account.address)).usdc;
    expect(usdc).toBeLessThan(250_000);
    expect(usdc).toBeGreaterThan(249_000);
  });

  test('a payment below what the call reserves is refused with the 402 for the right amount, before anything is settled', async () => {
    const { account } = newPayer();
    // Signed for a small chat (0.25 USD), sent with one that may cost up to 0.3 USD.
    const { header } = await signedFor(account);
    const settles = s.facilitator.settleCalls.length;
    const res = await appFetch(s.t)(CHAT, post(chatBody(150_000), { 'PAYMENT-SIGNATURE': header }));
    expect(res.status).toBe(402);
    const required = decodePaymentRequiredHeader(res.headers.get('payment-required') as string);
    expect(Number(required.accepts[0]!.amount)).toBeGreaterThan(300_000);
    expect(s.facilitator.settleCalls.length).toBe(settles);
    expect((await walletOf(account.address)).usdc).toBe(0);
    // The client pays what that 402 asks, and the call goes through.
    const paid = await plainClient(account)(CHAT, post(chatBody(150_000)));
    expect(paid.status).toBe(200);
  });

  test('paid calls cannot overspend: concurrent calls on one credit are admitted only while the balance covers them', async () => {
    const { account, wallet } = newPayer();
    expect((await plainClient(account)(CHAT, post(chatBody()))).status).toBe(200);
    const signIn = () => evmSignIn(wallet as never, { domain: 'localhost', uri: ORIGIN });
    // Each reserves about 0.12 USD; the wallet holds just under 0.25; the upstream holds them all in flight at once.
    const headers = await Promise.all(Array.from({ length: 4 }, async () => ({ 'SIGN-IN-WITH-X': await signIn() })));
    up.set({ headerDelayMs: 300 });
    let results: Response[];
    try {
      results = await Promise.all(headers.map((h) => appFetch(s.t)(CHAT, post(chatBody(60_000), h))));
    } finally {
      up.set({});
    }
    const ok = results.filter((r) => r.status === 200).length;
    expect(ok).toBe(2);
    expect(results.every((r) => r.status === 200 || r.status === 402)).toBe(true);
    await Promise.all(results.map((r) => r.arrayBuffer()));
    await s.t.deps.meter.flush();
    expect((await walletOf(account.address)).usdc).toBeGreaterThan(0);
  });

  test('paid calls of one wallet share its concurrency limit: the 6th at once is 429 before its payment is settled', async () => {
    const { account } = newPayer();
    const payments = await Promise.all(Array.from({ length: 6 }, () => signedFor(account)));
    const settles = s.facilitator.settleCalls.length;
    up.set({ headerDelayMs: 300 });
    let results: Response[];
    try {
      results = await Promise.all(payments.map(({ header }) => appFetch(s.t)(CHAT, post(chatBody(), { 'PAYMENT-SIGNATURE': header }))));
    } finally {
      up.set({});
    }
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 429]);
    const refused = results.find((r) => r.status === 429) as Response;
    expect((await refused.json()).error).toBe('X402_CONCURRENCY_LIMIT');
    await Promise.all(results.filter((r) => r !== refused).map((r) => r.arrayBuffer()));
    expect(s.facilitator.settleCalls.length).toBe(settles + 5);
    await s.t.deps.meter.flush();
    const usdc = (await walletOf(account.address)).usdc;
    expect(usdc).toBeGreaterThan(5 * 249_000);
    expect(usdc).toBeLessThan(5 * 250_000);
  });

  test('a paid stream carries PAYMENT-RESPONSE before its first chunk', async () => {
    const { account } = newPayer();
    const body = JSON.stringify({ model: 'fix-pay', messages: [{ role: 'user', content: 'hello' }], max_tokens: 16, stream: true });
    const res = await plainClient(account)(CHAT, post(body));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    expect(decodePaymentResponseHeader(res.headers.get('payment-response') as string).payer).toBe(account.address);
    expect(await res.text()).toContain('[DONE]');
  });

  test('a payment below the smallest payment for a call is AMOUNT_TOO_LOW, before the facilitator is asked', async () => {
    const { header } = await signedFor(newPayer().account, chatBody(), '100000');
    const verifies = s.facilitator.verifyCalls;
    const res = await appFetch(s.t)(CHAT, post(chatBody(), { 'PAYMENT-SIGNATURE': header }));
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'AMOUNT_TOO_LOW', message: 'The minimum payment for one call is 0.25 USD' });
    expect(s.facilitator.verifyCalls).toBe(verifies);
  });

  test('a malformed payment header is a 400 naming the field; nothing is verified or settled', async () => {
    const verifies = s.facilitator.verifyCalls;
    const res = await appFetch(s.t)(
      CHAT,
      post(chatBody(), { 'PAYMENT-SIGNATURE': Buffer.from(JSON.stringify({ x402Version: 2, payload: {} })).toString('base64') }),
    );
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'X402_INVALID_PAYMENT', message: 'Payment field "accepted" is missing or invalid' });
    expect(s.facilitator.verifyCalls).toBe(verifies);
  });

  test('a bad request body with a payment is a 400 before the facilitator is asked; an API key ignores payment headers', async () => {
    const { account } = newPayer();
    const { header } = await signedFor(account);
    const verifies = s.facilitator.verifyCalls;
    const bad = await appFetch(s.t)(CHAT, post(JSON.stringify({ model: 'fix-pay', messages: 'hi' }), { 'PAYMENT-SIGNATURE': header }));
    expect(bad.status).toBe(400);
    expect((await bad.json()).error).toContain('messages');
    expect(s.facilitator.verifyCalls).toBe(verifies);
    const byKey = await appFetch(s.t)(CHAT, post(chatBody(), { 'PAYMENT-SIGNATURE': header, authorization: `Bearer ${s.t.adminKey}` }));
    expect(byKey.status).toBe(200);
    expect(byKey.headers.get('payment-response')).toBeNull();
    expect(s.facilitator.verifyCalls).toBe(verifies);
  });
});

describe.each(BACKENDS)('x402 pay-per-call on the image routes on $name', (backend) => {
  let s: Awaited<ReturnType<typeof startPaymentsApp>>;
  beforeAll(async () => {
    s = await startPaymentsApp(backend);
  });
  afterAll(() => s.close());

  test('@x402/fetch alone completes an image generation', async () => {
    const { account } = newPayer();
    const pay = wrapFetchWithPayment(appFetch(s.t), new x402Client().register('eip155:*', new ExactEvmScheme(account))) as typeof fetch;
    const res = await pay(
      `${ORIGIN}/api/v1/image/generate`,
      post(JSON.stringify({ model: 'z-image-turbo', prompt: 'a lighthouse', format: 'png' })),
    );
    expect(res.status).toBe(200);
    expect((await res.json()).images).toHaveLength(1);
    expect(decodePaymentResponseHeader(res.headers.get('payment-response') as string).payer).toBe(account.address);
    const [row] = await s.t.deps.storage.db.select().from(accounts).where(eq(accounts.walletAddress, account.address.toLowerCase()));
    const usdc = (await s.t.deps.meter.balances(row!.id)).USDC ?? 0;
    expect(usdc).toBeGreaterThan(0);
    expect(usdc).toBeLessThan(250_000);
  });
});

describe('x402 pay-per-call in the OpenAPI document', () => {
  test("metered operations carry the reference's x-payment-info (a dynamic price, x402) when payments are configured; others do not", async () => {
    const s = await startPaymentsApp(EMBEDDED);
    try {
      const doc = await (await s.t.request('/openapi.json', { key: null })).json();
      const info = { price: { mode: 'dynamic', currency: 'USD', min: '0.25', max: '10000.00' }, protocols: [{ x402: {} }] };
      for (const path of ['/chat/completions', '/embeddings', '/image/generate'])
        expect(doc.paths[path].post['x-payment-info']).toEqual(info);
      expect(doc.paths['/api_keys'].get['x-payment-info']).toBeUndefined();
    } finally {
      await s.close();
    }
    const plain = await startTestApp();
    try {
      const doc = await (await plain.request('/openapi.json', { key: null })).json();
      expect(doc.paths['/chat/completions'].post['x-payment-info']).toBeUndefined();
    } finally {
      await plain.close();
    }
  });
});

describe('x402 pay-per-call with the abuse guard on', () => {
  let s: Awaited<ReturnType<typeof startPaymentsApp>>;
  beforeAll(async () => {
    s = await startPaymentsApp(EMBEDDED, {}, { abuseGuard: { enabled: true, maxFailures: 3, trustForwardedFor: true } });
  });
  afterAll(() => s.close());

  const chatFrom = (ip: string, body: string, headers: Record<string, string> = {}) =>
    appFetch(s.t)(`${ORIGIN}/api/v1/chat/completions`, post(body, { 'x-forwarded-for': ip, ...headers }));
  const llama = JSON.stringify({ model: 'llama-3.3-70b', messages: [{ role: 'user', content: 'hi' }], max_tokens: 8 });

  test('the x402 challenge before each paid call is not counted as a failure; real failures still are', async () => {
    for (let i = 0; i < 6; i++) expect((await chatFrom('10.7.7.7', llama)).status).toBe(402);
    await abuseGuardOf(s.t.deps).idle();
    const { account } = newPayer();
    const pay = wrapFetchWithPayment(
      ((input: RequestInfo | URL, init?: RequestInit) => {
        const request = new Request(input, init);
        request.headers.set('x-forwarded-for', '10.7.7.7');
        return s.t.app.handle(request);
      }) as typeof fetch,
      new x402Client().register('eip155:*', new ExactEvmScheme(account)),
    );
    expect((await pay(`${ORIGIN}/api/v1/chat/completions`, post(llama))).status).toBe(200);
    // Four bad requests from another address do block it.
    for (let i = 0; i < 4; i++) await chatFrom('10.8.8.8', JSON.stringify({ model: 'llama-3.3-70b' }));
    await abuseGuardOf(s.t.deps).idle();
    expect((await chatFrom('10.8.8.8', llama)).status).toBe(429);
  });

  test("a payer whose wallet account is blocked is refused with the guard's 429 before its payment is settled", async () => {
    const { account } = newPayer();
    const pay = wrapFetchWithPayment(appFetch(s.t), new x402Client().register('eip155:*', new ExactEvmScheme(account))) as typeof fetch;
    expect((await pay(`${ORIGIN}/api/v1/chat/completions`, post(llama))).status).toBe(200);
    const [row] = await s.t.deps.storage.db.select().from(accounts).where(eq(accounts.walletAddress, account.address.toLowerCase()));
    const guard = abuseGuardOf(s.t.deps);
    for (let i = 0; i < 4; i++) await guard.countFailure(`a:${row!.id}`);
    expect(guard.accountBlockedUntil(row!.id)).toBeGreaterThan(Date.now());
    const settles = s.facilitator.settleCalls.length;
    const res = await pay(`${ORIGIN}/api/v1/chat/completions`, post(llama));
    expect(res.status).toBe(429);
    expect((await res.json()).error).toContain('Too many failed attempts');
    expect(s.facilitator.settleCalls.length).toBe(settles);
  });
});
