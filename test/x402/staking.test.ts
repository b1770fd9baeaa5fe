import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { like } from 'drizzle-orm';
import { ensureWalletAccount } from '../../src/auth/wallet-accounts';
import { parseWalletsConfig } from '../../src/auth/wallet-config';
import { ledgerLines } from '../../src/db/schema';
import { createMemoryStore } from '../../src/kv/memory';
import { stakingCredit } from '../../src/x402/staking-credit';
import { startRpcFixture, type RpcFixture } from '../fixtures/rpc-evm';
import { startTestApp, type TestApp } from '../helpers/app';
import { BACKENDS } from '../helpers/backends';
import { evmSignIn } from '../wallet/sign';
import { newPayer, ORIGIN } from './helpers';

const TOKEN = '0x1111111111111111111111111111111111111111';
const DAY = 86_400_000;
const WHOLE = 10n ** 18n;

describe.each(BACKENDS)('daily staking credit on $name', (backend) => {
  let t: TestApp;
  let rpc: RpcFixture;
  const clock = { now: Date.UTC(2026, 10, 24, 12) };
  beforeAll(async () => {
    rpc = startRpcFixture(TOKEN);
    t = await startTestApp({
      backend,
      now: () => clock.now,
      config: {
        publicUrl: ORIGIN,
        wallets: {
          web3Keys: { staking: { rpcUrl: rpc.url, tokenAddress: TOKEN, timeoutMs: 300 } },
          payments: { stakingCreditUsdPerToken: '1' },
        },
      },
    });
  });
  afterAll(async () => {
    await t.close();
    rpc.close();
  });

  const chat = async (wallet: ReturnType<typeof newPayer>['wallet']) =>
    t.request('/chat/completions', {
      method: 'POST',
      key: null,
      headers: {
        'content-type': 'application/json',
        'SIGN-IN-WITH-X': await evmSignIn(wallet as never, { domain: 'localhost', uri: ORIGIN, now: clock.now }),
      },
      body: JSON.stringify({ model: 'llama-3.3-70b', messages: [{ role: 'user', content: 'hi' }], max_tokens: 8 }),
    });
  const stakingRows = async (accountId: string) =>
    (await t.deps.storage.db.select().from(ledgerLines).where(like(ledgerLines.requestId, 'staking:%'))).filter(
      (r) => r.accountId === accountId,
    );

  test('1 token staked gives 1 USD a day: granted on the first call of the UTC day, once, and again the next day', async () => {
    const { wallet } = newPayer();
    rpc.balances.set(wallet.address.toLowerCase(), (5n * WHOLE) / 2n);
    const first = await chat(wallet);
    expect(first.status).toBe(200);
    const remaining = Number(first.headers.get('x-balance-remaining'));
    expect(remaining).toBeGreaterThan(2.49);
    expect(remaining).toBeLessThan(2.5);
    await first.arrayBuffer();
    const account = await ensureWalletAccount(t.deps.storage.db, wallet.address, 'evm');
    const calls = rpc.calls.length;
    expect((await chat(wallet)).status).toBe(200);
    expect(rpc.calls.length).toBe(calls);
    let rows = await stakingRows(account.id);
    expect(rows.map((r) => [r.kind, r.currency, r.amountMicros, r.requestId])).toEqual([
      ['CREDIT', 'USDC', 2_500_000, `staking:${account.id}:2026-11-24`],
    ]);
    clock.now += DAY;
    expect((await chat(wallet)).status).toBe(200);
    rows = await stakingRows(account.id);
    expect(rows.map((r) => r.requestId).sort()).toEqual([`staking:${account.id}:2026-11-24`, `staking:${account.id}:2026-11-25`]);
  });

  test('two instances granting at once credit once (the ledger request id decides)', async () => {
    const { wallet } = newPayer();
    rpc.balances.set(wallet.address.toLowerCase(), 3n * WHOLE);
    const account = await ensureWalletAccount(t.deps.storage.db, wallet.address, 'evm');
    const caller = {
      accountId: account.id,
      tier: 'standard' as const,
      via: 'wallet' as const,
      apiKey: null,
      wallet: { address: wallet.address.toLowerCase(), chain: 'evm' as const },
    };
    const wallets = parseWalletsConfig(t.deps.config);
    const instance = () =>
      stakingCredit({ wallets, meter: t.deps.meter, kv: createMemoryStore(), fetch, now: () => clock.now, log: t.deps.log })!;
    await Promise.all([instance()(caller), instance()(caller), instance()(caller)]);
    const rows = await stakingRows(account.id);
    expect(rows.map((r) => r.amountMicros)).toEqual([3_000_000]);
    expect((await t.deps.meter.balances(account.id)).USDC).toBe(3_000_000);
  });

  test('no stake, or the staking node down: no credit, and the wallet without balance gets its 402', async () => {
    const { wallet } = newPayer();
    expect((await chat(wallet)).status).toBe(402);
    const other = newPayer();
    rpc.balances.set(other.wallet.address.toLowerCase(), 10n * WHOLE);
    rpc.mode = 'http500';
    try {
      expect((await chat(other.wallet)).status).toBe(402);
    } finally {
      rpc.mode = 'ok';
    }
    const account = await ensureWalletAccount(t.deps.storage.db, other.wallet.address, 'evm');
    expect(await stakingRows(account.id)).toEqual([]);
  });
});
