import { afterAll, beforeAll, describe as suite, expect, test } from 'bun:test';
import { EMBEDDED } from '../helpers/backends';
import { evmSignIn } from '../wallet/sign';
import { newPayer, ORIGIN, signedTopUp, startPaymentsApp, topUpRequest } from '../x402/helpers';
import { describe, form, png } from './helpers';

/** Image calls paid by a signed-in wallet: the 402 with top-up instructions before any work, and the charge from its balance. */
suite('images paid by a wallet', () => {
  let s: Awaited<ReturnType<typeof startPaymentsApp>>;
  beforeAll(async () => {
    s = await startPaymentsApp(EMBEDDED);
  });
  afterAll(() => s.close());

  const signIn = async (wallet: ReturnType<typeof newPayer>['wallet']) => evmSignIn(wallet as never, { domain: 'localhost', uri: ORIGIN });

  test('a wallet without balance gets the 402 with top-up instructions, before anything is generated', async () => {
    const { wallet } = newPayer();
    const res = await s.t.request('/image/generate', {
      method: 'POST',
      key: null,
      headers: { 'content-type': 'application/json', 'SIGN-IN-WITH-X': await signIn(wallet) },
      body: JSON.stringify({ model: 'z-image-turbo', prompt: 'a boat' }),
    });
    expect(res.status).toBe(402);
    const body = await res.json();
    expect(body).toMatchObject({ code: 'PAYMENT_REQUIRED', reason: 'insufficient_balance', supportedTokens: ['USDC'] });
    expect(body.topUpInstructions.network).toBe('eip155:8453');
  });

  test('a topped-up wallet edits an image; X-Balance-Remaining is its balance less the edit', async () => {
    const payer = newPayer();
    const { header } = await signedTopUp(s.t, payer.account, 5);
    expect((await topUpRequest(s.t, { header })).status).toBe(200);
    const res = await s.t.request('/image/edit', {
      method: 'POST',
      key: null,
      headers: { 'SIGN-IN-WITH-X': await signIn(payer.wallet) },
      body: form({ prompt: 'make it night', image: await png(512, 512) }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-balance-remaining')).toBe('4.960000');
    expect(await describe(await res.arrayBuffer())).toMatchObject({ format: 'png', width: 1024, height: 1024 });
  });
});
