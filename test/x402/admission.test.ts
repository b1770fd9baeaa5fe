import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { ensureWalletAccount } from '../../src/auth/wallet-accounts';
import { accounts } from '../../src/db/schema';
import { fixtureModel, fixtureProvider } from '../chat/helpers';
import { startUpstream, type FixtureUpstream } from '../fixtures/openai-upstream';
import { BACKENDS } from '../helpers/backends';
import { evmSignIn } from '../wallet/sign';
import { newPayer, ORIGIN, startPaymentsApp } from './helpers';

describe.each(BACKENDS)('wallet admission on $name', (backend) => {
  let s: Awaited<ReturnType<typeof startPaymentsApp>>;
  let up: FixtureUpstream;
  beforeAll(async () => {
    up = startUpstream('admission');
    s = await startPaymentsApp(backend, {}, { providers: [fixtureProvider('fx', up.url)], models: [fixtureModel('fix-one', ['fx'])] });
  });
  afterAll(async () => {
    await s.close();
    await up.close();
  });

  async function fundedWallet(micros: number) {
    const payer = newPayer();
    const account = await ensureWalletAccount(s.t.deps.storage.db, payer.account.address, 'evm');
    await s.t.deps.meter.credit({
      accountId: account.id,
      currency: 'USDC',
      amountMicros: micros,
      requestId: `fund-${account.id}`,
      kind: 'TOP_UP',
    });
    return payer;
  }
  async function chat(wallet: ReturnType<typeof newPayer>['wallet'], stream = false) {
    return s.t.request('/chat/completions', {
      method: 'POST',
      key: null,
      headers: {
        'content-type': 'application/json',
        'SIGN-IN-WITH-X': await evmSignIn(wallet as never, { domain: 'localhost', uri: ORIGIN }),
      },
      body: JSON.stringify({ model: 'fix-one', messages: [{ role: 'user', content: 'hi' }], max_tokens: 8, stream }),
    });
  }

  test('a wallet below the $0.10 minimum balance is refused with 402 variant 3 before anything is reserved', async () => {
    const { wallet, account } = await fundedWallet(99_999);
    const requests = up.requests.length;
    const res = await chat(wallet);
    expect(res.status).toBe(402);
    expect(await res.json()).toMatchObject({ code: 'PAYMENT_REQUIRED', currentBalanceUsd: 0.099999, minimumBalanceUsd: 0.1 });
    expect(up.requests.length).toBe(requests);
    const [row] = await s.t.deps.storage.db.select().from(accounts).where(eq(accounts.walletAddress, account.address.toLowerCase()));
    expect((await s.t.deps.meter.balances(row!.id)).USDC).toBe(99_999);
    const enough = await fundedWallet(100_000);
    expect((await chat(enough.wallet)).status).toBe(200);
  });

  test('at most 5 calls of one wallet at once: the 6th is 429 X402_CONCURRENCY_LIMIT; slots come back when calls end, streams included', async () => {
    const { wallet } = await fundedWallet(5_000_000);
    up.set({ headerDelayMs: 400 });
    try {
      const results = await Promise.all(Array.from({ length: 6 }, (_, i) => chat(wallet, i % 2 === 0)));
      const statuses = results.map((r) => r.status).sort();
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
      const refused = results.find((r) => r.status === 429) as Response;
      expect(await refused.json()).toEqual({
        error: 'X402_CONCURRENCY_LIMIT',
        message: 'At most 5 requests of one wallet may run at once',
      });
      await Promise.all(results.filter((r) => r !== refused).map((r) => r.arrayBuffer()));
    } finally {
      up.set({});
    }
    // Every slot was given back: five more at once are admitted.
    const again = await Promise.all(Array.from({ length: 5 }, () => chat(wallet)));
    expect(again.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
  });

  test('another wallet is not limited by the first one', async () => {
    const a = await fundedWallet(1_000_000);
    const b = await fundedWallet(1_000_000);
    up.set({ headerDelayMs: 200 });
    try {
      const results = await Promise.all([...Array.from({ length: 5 }, () => chat(a.wallet)), chat(b.wallet)]);
      expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
      await Promise.all(results.map((r) => r.arrayBuffer()));
    } finally {
      up.set({});
    }
  });
});
