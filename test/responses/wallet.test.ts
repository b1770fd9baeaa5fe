import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { accounts, ledgerCharges } from '../../src/db/schema';
import type { Storage } from '../../src/db/database';
import { startUpstream, type FixtureUpstream } from '../fixtures/openai-upstream';
import { BACKENDS } from '../helpers/backends';
import { evmSignIn, newEvmWallet, PUBLIC_URL } from '../wallet/sign';
import { COST, MODEL, openMeterSuite, PROMPT, type MeterInstance } from '../billing/meter-helpers';

let up: FixtureUpstream;
beforeAll(() => {
  up = startUpstream('wallet-resp');
});
afterAll(() => up.close());

describe.each(BACKENDS)('/responses for wallet callers on $name', (backend) => {
  let storage: Storage;
  let m: MeterInstance;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ storage, m, close } = await openMeterSuite(backend, { upstreamUrl: up.url, config: { publicUrl: PUBLIC_URL } }));
  });
  afterAll(() => close());

  const respond = async (wallet: ReturnType<typeof newEvmWallet>, json: Record<string, unknown> = {}) =>
    m.app.handle(
      new Request('http://localhost/api/v1/responses', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'SIGN-IN-WITH-X': await evmSignIn(wallet) },
        body: JSON.stringify({ model: MODEL, input: PROMPT, max_output_tokens: 5, ...json }),
      }),
    );

  test('a wallet without credit gets the 402 with top-up instructions; with credit it pays once and sees X-Balance-Remaining', async () => {
    const wallet = newEvmWallet();
    const refused = await respond(wallet);
    expect(refused.status).toBe(402);
    expect(await refused.json()).toMatchObject({ code: 'PAYMENT_REQUIRED', reason: 'insufficient_balance' });

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
    const paid = await respond(wallet);
    expect(paid.status).toBe(200);
    expect(paid.headers.get('x-balance-remaining')).toBe('4.999980');
    expect((await paid.json()).cost).toEqual({ usd: 0.00002, diem: 0 });
    expect((await m.meter.balances(account!.id)).USDC).toBe(5_000_000 - COST);

    const streamed = await respond(wallet, { stream: true });
    expect(streamed.headers.get('x-balance-remaining')).toBeString();
    expect(await streamed.text()).toContain('event: response.completed');
    await m.meter.flush();
    const rows = await storage.db.select().from(ledgerCharges).where(eq(ledgerCharges.accountId, account!.id));
    expect(rows).toHaveLength(2);
    expect((await m.meter.balances(account!.id)).USDC).toBe(5_000_000 - 2 * COST);
  });
});
