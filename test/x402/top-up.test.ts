import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from '@x402/core/http';
import { and, eq } from 'drizzle-orm';
import { ledgerLines, walletPayments } from '../../src/db/schema';
import { startTestApp } from '../helpers/app';
import { BACKENDS } from '../helpers/backends';
import {
  newPayer,
  ORIGIN,
  PAY_TO_BASE,
  PAY_TO_SOLANA,
  payingFetch,
  signedGet,
  signedTopUp,
  startPaymentsApp,
  topUpRequest,
} from './helpers';

const SOLANA = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';

describe.each(BACKENDS)('POST /x402/top-up on $name', (backend) => {
  let s: Awaited<ReturnType<typeof startPaymentsApp>>;
  beforeAll(async () => {
    s = await startPaymentsApp(backend);
  });
  afterAll(() => s.close());

  const creditsOf = async (paymentId: string) =>
    s.t.deps.storage.db
      .select()
      .from(ledgerLines)
      .where(eq(ledgerLines.requestId, `x402:${paymentId}`));

  test('without a payment header: 402 with USDC on Base and Solana, the same object in PAYMENT-REQUIRED', async () => {
    const res = await topUpRequest(s.t);
    expect(res.status).toBe(402);
    const body = await res.json();
    expect(body.x402Version).toBe(2);
    expect(body.accepts).toEqual([
      {
        scheme: 'exact',
        network: 'eip155:8453',
        asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
        amount: '5000000',
        payTo: PAY_TO_BASE,
        maxTimeoutSeconds: 300,
        extra: { name: 'USD Coin', version: '2' },
      },
      {
        scheme: 'exact',
        network: SOLANA,
        asset: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
        amount: '5000000',
        payTo: PAY_TO_SOLANA,
        maxTimeoutSeconds: 300,
        extra: { feePayer: s.facilitator.feePayer },
      },
    ]);
    expect(decodePaymentRequiredHeader(res.headers.get('payment-required') as string)).toEqual(body);
    expect(res.headers.get('cf-ray')).toBeTruthy();
  });

  test('amountUsd picks the amount offered; out of bounds is AMOUNT_TOO_LOW / AMOUNT_TOO_HIGH; a bad body names the field', async () => {
    const twenty = await (await topUpRequest(s.t, { json: { amountUsd: 20 } })).json();
    expect(twenty.accepts.map((a: { amount: string }) => a.amount)).toEqual(['20000000', '20000000']);
    const low = await topUpRequest(s.t, { json: { amountUsd: 4.99 } });
    expect(low.status).toBe(400);
    expect(await low.json()).toEqual({ error: 'AMOUNT_TOO_LOW', message: 'The minimum top-up is 5 USD' });
    const high = await topUpRequest(s.t, { json: { amountUsd: 10_001 } });
    expect(await high.json()).toEqual({ error: 'AMOUNT_TOO_HIGH', message: 'The maximum top-up is 10000 USD' });
    const bad = await topUpRequest(s.t, { json: { amountUsd: 'ten' } });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error).toContain('amountUsd');
  });

  test('@x402/fetch pays the 402 and gets 200 with PAYMENT-RESPONSE; the credit, ledger entry and payment row commit once', async () => {
    const { account, wallet } = newPayer();
    const pay = payingFetch(s.t, account);
    const res = await pay(`${ORIGIN}/api/v1/x402/top-up`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '10.9.9.1' },
      body: JSON.stringify({ amountUsd: 7.5 }),
    });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toEqual({
      success: true,
      data: {
        walletAddress: account.address,
        amountCredited: 7.5,
        newBalance: 7.5,
        paymentId: expect.stringMatching(/^pay_[0-9a-f]{32}$/),
      },
    });
    const receipt = decodePaymentResponseHeader(res.headers.get('payment-response') as string);
    expect(receipt).toMatchObject({ success: true, network: 'eip155:8453', payer: account.address });
    expect(receipt.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    const [row] = await s.t.deps.storage.db.select().from(walletPayments).where(eq(walletPayments.paymentId, body.data.paymentId));
    expect(row).toMatchObject({ status: 'credited', amountMicros: 7_500_000, network: 'eip155:8453', transaction: receipt.transaction });
    const credits = await creditsOf(body.data.paymentId);
    expect(credits).toHaveLength(1);
    expect(credits[0]).toMatchObject({ kind: 'TOP_UP', currency: 'USDC', amountMicros: 7_500_000 });
    const balance = await signedGet(s.t, `/x402/balance/${account.address}`, wallet);
    expect(balance.status).toBe(200);
    expect(await balance.json()).toEqual({
      success: true,
      data: { walletAddress: account.address, balanceUsd: 7.5, canConsume: true, minimumTopUpUsd: 5, suggestedTopUpUsd: 10 },
    });
  });

  test('a replayed payment is refused and credits nothing more; the legacy header names work', async () => {
    const { account } = newPayer();
    const { header } = await signedTopUp(s.t, account);
    const first = await topUpRequest(s.t, { header, headerName: 'X-PAYMENT' });
    expect(first.status).toBe(200);
    const { paymentId } = (await first.json()).data;
    for (const name of ['PAYMENT-SIGNATURE', 'X-402-Payment']) {
      const again = await topUpRequest(s.t, { header, headerName: name });
      expect(again.status).toBe(409);
      expect(await again.json()).toEqual({
        error: 'X402_PAYMENT_REPLAYED',
        message: `This payment was already used (payment ${paymentId})`,
      });
    }
    expect(await creditsOf(paymentId)).toHaveLength(1);
  });

  test('two concurrent top-ups with the same authorization: one credit, the other refused', async () => {
    const { account } = newPayer();
    const { header } = await signedTopUp(s.t, account);
    const results = await Promise.all([topUpRequest(s.t, { header }), topUpRequest(s.t, { header }), topUpRequest(s.t, { header })]);
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 409, 409]);
    const ok = results.find((r) => r.status === 200) as Response;
    const { paymentId, newBalance } = (await ok.json()).data;
    expect(newBalance).toBe(5);
    expect(await creditsOf(paymentId)).toHaveLength(1);
    for (const r of results.filter((r) => r.status === 409))
      expect(['PAYMENT_IN_PROGRESS', 'X402_PAYMENT_REPLAYED']).toContain((await r.json()).error);
  });

  test('a tampered amount, a wrong payTo, an unsupported network and amounts out of bounds are refused before the facilitator', async () => {
    const { account } = newPayer();
    const verifyCalls = s.facilitator.verifyCalls;
    // Signed for 5 USD, then the accepted amount raised to 50: the authorization no longer matches.
    const { payload } = await signedTopUp(s.t, account);
    const tampered = structuredClone(payload);
    tampered.accepted.amount = '50000000';
    const encode = (p: unknown) => Buffer.from(JSON.stringify(p)).toString('base64');
    let res = await topUpRequest(s.t, { header: encode(tampered) });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: 'X402_INVALID_PAYMENT',
      message: 'Payment field "payload.authorization.value" does not match the accepted amount',
    });
    // Both raised: the signature no longer recovers to the payer.
    (tampered.payload.authorization as Record<string, string>).value = '50000000';
    res = await topUpRequest(s.t, { header: encode(tampered) });
    expect(await res.json()).toEqual({ error: 'X402_INVALID_PAYMENT', message: 'The payment signature does not match the authorization' });

    const other = '0x000000000000000000000000000000000000dEaD';
    const wrongPayTo = await signedTopUp(s.t, account, undefined, (r) => void (r.payTo = other));
    res = await topUpRequest(s.t, { header: wrongPayTo.header });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toBe('INVALID_PAYMENT_RECIPIENT');

    const wrongNetwork = await signedTopUp(s.t, account, undefined, (r) => void (r.network = 'eip155:1'));
    res = await topUpRequest(s.t, { header: wrongNetwork.header });
    expect(await res.json()).toEqual({
      error: 'UNSUPPORTED_NETWORK',
      message: `Network eip155:1 is not accepted; use one of eip155:8453, ${SOLANA}`,
    });

    const low = await signedTopUp(s.t, account, undefined, (r) => void (r.amount = '4999999'));
    res = await topUpRequest(s.t, { header: low.header });
    expect((await res.json()).error).toBe('AMOUNT_TOO_LOW');
    const high = await signedTopUp(s.t, account, undefined, (r) => void (r.amount = '10000000001'));
    res = await topUpRequest(s.t, { header: high.header });
    expect((await res.json()).error).toBe('AMOUNT_TOO_HIGH');

    const expired = await signedTopUp(s.t, account, undefined, (r) => void (r.maxTimeoutSeconds = 1));
    res = await topUpRequest(s.t, { header: expired.header });
    expect((await res.json()).message).toContain('maxTimeoutSeconds');
    expect(s.facilitator.verifyCalls).toBe(verifyCalls);
  });

  test('malformed headers are 400 X402_INVALID_PAYMENT naming the problem', async () => {
    let res = await topUpRequest(s.t, { header: 'not base64 !!' });
    expect(await res.json()).toEqual({ error: 'X402_INVALID_PAYMENT', message: 'The payment header is not base64-encoded JSON' });
    res = await topUpRequest(s.t, { header: Buffer.from(JSON.stringify({ x402Version: 2, payload: {} })).toString('base64') });
    expect(await res.json()).toEqual({ error: 'X402_INVALID_PAYMENT', message: 'Payment field "accepted" is missing or invalid' });
    res = await topUpRequest(s.t, { header: Buffer.from(JSON.stringify({ x402Version: 1, scheme: 'exact' })).toString('base64') });
    expect((await res.json()).message).toContain('x402Version 1');
  });

  test('more than 10 top-up requests a minute from one IP are 429; another IP is not affected', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await topUpRequest(s.t, { ip: '192.0.2.77' })).status);
    expect(statuses).toEqual([...Array(10).fill(402), 429]);
    const refused = await topUpRequest(s.t, { ip: '192.0.2.77' });
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect((await topUpRequest(s.t, { ip: '192.0.2.78' })).status).toBe(402);
  });

  test('100 top-up requests at once from one IP: exactly 10 get past the limit, the rest are 429', async () => {
    const answers = await Promise.all(Array.from({ length: 100 }, () => topUpRequest(s.t, { ip: '192.0.2.79' })));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((code) => code === 402).length).toBe(10);
    expect(statuses.filter((code) => code === 429).length).toBe(90);
  });
});

describe('without payments configured', () => {
  test('top-up is 503 X402_NOT_CONFIGURED and an anonymous chat keeps its 401', async () => {
    const t = await startTestApp({ config: { publicUrl: ORIGIN } });
    try {
      const res = await topUpRequest(t);
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({
        error: 'X402_NOT_CONFIGURED',
        message: 'Wallet top-ups are not configured on this server (wallets.payments)',
      });
      const chat = await t.request('/chat/completions', { method: 'POST', key: null, json: { model: 'llama-3.3-70b', messages: [] } });
      expect(chat.status).toBe(401);
      expect(chat.headers.get('payment-required')).toBeNull();
    } finally {
      await t.close();
    }
  });
});

describe.each(BACKENDS)('facilitator failures on $name', (backend) => {
  let s: Awaited<ReturnType<typeof startPaymentsApp>>;
  beforeAll(async () => {
    s = await startPaymentsApp(backend);
  });
  afterAll(() => s.close());

  const balanceRows = async (payer: string) =>
    s.t.deps.storage.db
      .select()
      .from(walletPayments)
      .where(and(eq(walletPayments.payer, payer.toLowerCase())));

  test('verification refused: 400 with the reason, nothing stored or credited', async () => {
    const { account } = newPayer();
    const { header } = await signedTopUp(s.t, account);
    s.facilitator.behaviour.verify = 'invalid';
    try {
      const res = await topUpRequest(s.t, { header });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        error: 'X402_INVALID_PAYMENT',
        message: 'The facilitator refused the payment: insufficient_funds',
      });
    } finally {
      s.facilitator.behaviour.verify = 'ok';
    }
    expect(await balanceRows(account.address)).toHaveLength(0);
  });

  test('verify 5xx or timeout: 502 FACILITATOR_UNAVAILABLE, nothing charged', async () => {
    const { account } = newPayer();
    const { header } = await signedTopUp(s.t, account);
    for (const mode of ['http500', 'hang'] as const) {
      s.facilitator.behaviour.verify = mode;
      const res = await topUpRequest(s.t, { header });
      expect(res.status).toBe(502);
      expect((await res.json()).error).toBe('FACILITATOR_UNAVAILABLE');
    }
    s.facilitator.behaviour.verify = 'ok';
    expect(await balanceRows(account.address)).toHaveLength(0);
  });

  test('a failed settlement credits nothing (402 SETTLEMENT_FAILED); the same payment can be sent again and is credited once', async () => {
    const { account } = newPayer();
    const { header } = await signedTopUp(s.t, account);
    s.facilitator.behaviour.settle = 'fail';
    const failed = await topUpRequest(s.t, { header });
    s.facilitator.behaviour.settle = 'ok';
    expect(failed.status).toBe(402);
    expect(await failed.json()).toEqual({
      error: 'SETTLEMENT_FAILED',
      message: 'Settlement failed: transaction_failed; nothing was credited',
    });
    const [row] = await balanceRows(account.address);
    expect(row).toMatchObject({ status: 'failed', error: 'transaction_failed' });
    const retried = await topUpRequest(s.t, { header });
    expect(retried.status).toBe(200);
    expect((await retried.json()).data.newBalance).toBe(5);
  });

  test('a settlement timeout is a 504 that credits nothing; the payment stays pending; a retry meanwhile is PAYMENT_IN_PROGRESS', async () => {
    const { account } = newPayer();
    const { header } = await signedTopUp(s.t, account);
    s.facilitator.behaviour.settle = 'hang';
    const timedOut = await topUpRequest(s.t, { header });
    expect(timedOut.status).toBe(504);
    expect((await timedOut.json()).error).toBe('SETTLEMENT_TIMEOUT');
    const [row] = await balanceRows(account.address);
    expect(row).toMatchObject({ status: 'pending' });
    expect(
      await s.t.deps.storage.db
        .select()
        .from(ledgerLines)
        .where(eq(ledgerLines.requestId, `x402:${row!.paymentId}`)),
    ).toHaveLength(0);
    s.facilitator.behaviour.settle = 'ok';
    const retry = await topUpRequest(s.t, { header });
    expect(retry.status).toBe(409);
    expect((await retry.json()).error).toBe('PAYMENT_IN_PROGRESS');
  });

  test('a settle 5xx is a 502 that credits nothing', async () => {
    const { account } = newPayer();
    const { header } = await signedTopUp(s.t, account);
    s.facilitator.behaviour.settle = 'http500';
    const res = await topUpRequest(s.t, { header });
    s.facilitator.behaviour.settle = 'ok';
    expect(res.status).toBe(502);
    expect((await res.json()).error).toBe('FACILITATOR_UNAVAILABLE');
    const [row] = await balanceRows(account.address);
    expect(row?.status).toBe('pending');
  });
});
