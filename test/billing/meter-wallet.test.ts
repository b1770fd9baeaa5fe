import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { walletPaymentRequired } from '../../src/billing/payment-required';
import { accounts } from '../../src/db/schema';
import { ServiceError } from '../../src/http/errors';
import type { Storage } from '../../src/db/database';
import type { KeyValueStore } from '../../src/kv/store';
import type { RateLimiter } from '../../src/limits/types';
import { unlimited } from '../../src/limits/types';
import { startUpstream, type FixtureUpstream } from '../fixtures/openai-upstream';
import { BACKENDS, EMBEDDED } from '../helpers/backends';
import { evmSignIn, newEvmWallet, PUBLIC_URL } from '../wallet/sign';
import { backendPair, charges, closeInstance, COST, instance, newAccount, type MeterInstance, openMeterSuite } from './meter-helpers';

let up: FixtureUpstream;
beforeAll(() => {
  up = startUpstream('wallet');
});
afterAll(() => up.close());

describe('402 body for wallets (variant 3)', () => {
  test('names the balance, the top-up amounts and how to top up', () => {
    const error = walletPaymentRequired({ balanceMicros: 1_250_000, neededMicros: 9_000_000, minimumTopUpUsd: 5, basePath: '/api/v1' });
    expect(error.status).toBe(402);
    expect(error.body).toMatchObject({
      error: 'Payment required',
      code: 'PAYMENT_REQUIRED',
      reason: 'insufficient_balance',
      currentBalanceUsd: 1.25,
      minimumBalanceUsd: 9,
      suggestedTopUpUsd: 8,
      minimumTopUpUsd: 5,
      supportedTokens: ['USDC'],
      supportedChains: ['base', 'solana'],
      topUpInstructions: { network: 'eip155:8453', minimumAmountUsd: 5 },
    });
    const steps = error.body.topUpInstructions as Record<string, string>;
    expect(steps.step1).toContain('POST /api/v1/x402/top-up');
    expect(steps.step3).toContain('PAYMENT-SIGNATURE');
    expect(walletPaymentRequired({ balanceMicros: 0, neededMicros: 20, minimumTopUpUsd: 5, basePath: '/v1' }).body.suggestedTopUpUsd).toBe(
      5,
    );
  });
});

describe.each(BACKENDS)('wallet callers on $name', (backend) => {
  let storage: Storage;
  let kv: KeyValueStore;
  let m: MeterInstance;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ storage, kv, m, close } = await openMeterSuite(backend, { upstreamUrl: up.url, config: { publicUrl: PUBLIC_URL } }));
  });
  afterAll(() => close());

  const walletChat = async (wallet: ReturnType<typeof newEvmWallet>) =>
    m.chat('', {}, { headers: { 'SIGN-IN-WITH-X': await evmSignIn(wallet) } });

  test('too little USDC is a 402 with top-up instructions; after a USDC credit the wallet pays and sees X-Balance-Remaining', async () => {
    const wallet = newEvmWallet();
    const refused = await walletChat(wallet);
    expect(refused.status).toBe(402);
    expect(await refused.json()).toMatchObject({
      code: 'PAYMENT_REQUIRED',
      reason: 'insufficient_balance',
      currentBalanceUsd: 0,
      minimumTopUpUsd: 5,
      supportedTokens: ['USDC'],
    });

    const [account] = await storage.db
      .select({ id: accounts.id })
      .from(accounts)
      .where(eq(accounts.walletAddress, wallet.address.toLowerCase()));
    await m.meter.credit({
      accountId: account!.id,
      currency: 'USDC',
      amountMicros: 5_000_000,
      requestId: `x402-${account!.id}`,
      kind: 'TOP_UP',
    });
    const paid = await walletChat(wallet);
    expect(paid.status).toBe(200);
    // A JSON answer reports what is left after its own cost.
    expect(paid.headers.get('x-balance-remaining')).toBe('4.999980');
    expect((await paid.json()).cost).toEqual({ usd: 0.00002, diem: 0 });
    expect((await m.meter.balances(account!.id)).USDC).toBe(5_000_000 - COST);
  });
});

describe('rate limits inside open()', () => {
  test('admitModel runs first with the reserved tokens; its headers ride along; settleTokens gets the actual tokens, or 0 when refused', async () => {
    const calls: { admitted: number[]; settled: number[] } = { admitted: [], settled: [] };
    const limits: RateLimiter = {
      ...unlimited,
      async admitModel(_caller, _model, reservedTokens) {
        calls.admitted.push(reservedTokens);
        return { headers: { 'x-ratelimit-remaining-requests': '7' }, settleTokens: async (n: number) => void calls.settled.push(n) };
      },
    };
    const { storage, kv } = await backendPair(EMBEDDED);
    const m = await instance({ storage, kv, upstreamUrl: up.url, limits });
    try {
      const { accountId, secret } = await newAccount(storage);
      const broke = await m.chat(secret);
      expect(broke.status).toBe(402);
      expect(broke.headers.get('x-ratelimit-remaining-requests')).toBe('7');
      await m.meter.credit({ accountId, currency: 'USD', amountMicros: COST, requestId: `f-${accountId}` });
      const ok = await m.chat(secret);
      expect(ok.status).toBe(200);
      expect(ok.headers.get('x-ratelimit-remaining-requests')).toBe('7');
      await ok.arrayBuffer();
      expect(calls).toEqual({ admitted: [15, 15], settled: [0, 15] });
    } finally {
      await closeInstance(m);
      await kv.close();
      await storage.close();
    }
  });

  test.each(BACKENDS)(
    'on $name, a request the rate limiter refuses (429) holds and charges nothing, though its reservation went out in the same tick',
    async (backend) => {
      let refuse = true;
      const limits: RateLimiter = {
        ...unlimited,
        async admitModel(caller, model, reservedTokens, requestId) {
          if (refuse) throw new ServiceError(429, { error: 'Rate limit exceeded' });
          return unlimited.admitModel(caller, model, reservedTokens, requestId);
        },
      };
      const { storage, kv } = await backendPair(backend);
      const m = await instance({ storage, kv, upstreamUrl: up.url, limits });
      try {
        const { accountId, secret } = await newAccount(storage);
        await m.meter.credit({ accountId, currency: 'USD', amountMicros: COST, requestId: `f-${accountId}` });
        const limited = await m.chat(secret);
        expect(limited.status).toBe(429);
        expect(await limited.json()).toEqual({ error: 'Rate limit exceeded' });
        refuse = false;
        // The balance covers exactly one request: a hold left by the 429 would make this a 402.
        const ok = await m.chat(secret);
        expect(ok.status).toBe(200);
        await ok.arrayBuffer();
        expect((await m.meter.balances(accountId)).USD).toBe(0);
        await m.meter.flush();
        expect((await charges(storage, accountId)).map((r) => r.requestId)).not.toContain(limited.headers.get('cf-ray'));
      } finally {
        await closeInstance(m);
        await kv.close();
        await storage.close();
      }
    },
  );
});
