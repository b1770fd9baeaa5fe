import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { walletPaymentRequired } from '../../src/billing/payment-required';
import { accounts } from '../../src/db/schema';
import type { Storage } from '../../src/db/database';
import type { KeyValueStore } from '../../src/kv/store';
import { startUpstream, type FixtureUpstream } from '../fixtures/openai-upstream';
import { BACKENDS } from '../helpers/backends';
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
