import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { EMBEDDED } from '../helpers/backends';
import { evmSignIn } from '../wallet/sign';
import { newPayer, ORIGIN, signedTopUp, startPaymentsApp, topUpRequest } from '../x402/helpers';
import { docx } from './documents';

/** The augment routes and usage analytics called by a signed-in wallet (SIGN-IN-WITH-X). */
describe('augment calls paid by a wallet', () => {
  let s: Awaited<ReturnType<typeof startPaymentsApp>>;
  beforeAll(async () => {
    s = await startPaymentsApp(EMBEDDED, {}, { search: { provider: 'simulated' } });
  });
  afterAll(() => s.close());

  const signIn = (wallet: ReturnType<typeof newPayer>['wallet']) => evmSignIn(wallet as never, { domain: 'localhost', uri: ORIGIN });
  const search = async (wallet: ReturnType<typeof newPayer>['wallet']) =>
    s.t.request('/augment/search', {
      method: 'POST',
      key: null,
      headers: { 'content-type': 'application/json', 'SIGN-IN-WITH-X': await signIn(wallet) },
      body: JSON.stringify({ query: 'otters' }),
    });

  test.each(['/augment/search', '/augment/scrape', '/augment/text-parser'])(
    'a wallet without balance gets the 402 with top-up instructions at %s, before any work',
    async (path) => {
      const { wallet } = newPayer();
      const headers: Record<string, string> = { 'SIGN-IN-WITH-X': await signIn(wallet) };
      let body: BodyInit;
      if (path === '/augment/text-parser') {
        const form = new FormData();
        form.append('file', new File([docx(['x']) as Uint8Array<ArrayBuffer>], 'a.docx'));
        body = form;
      } else {
        headers['content-type'] = 'application/json';
        body = JSON.stringify(path === '/augment/search' ? { query: 'otters' } : { url: 'https://example.org/' });
      }
      const res = await s.t.request(path, { method: 'POST', key: null, headers, body });
      expect(res.status).toBe(402);
      const err = await res.json();
      expect(err).toMatchObject({ code: 'PAYMENT_REQUIRED', reason: 'insufficient_balance', supportedTokens: ['USDC'] });
      expect(err.topUpInstructions.network).toBe('eip155:8453');
    },
  );

  test('a topped-up wallet searches; X-Balance-Remaining is its balance less the search; its analytics show it', async () => {
    const payer = newPayer();
    const { header } = await signedTopUp(s.t, payer.account, 5);
    expect((await topUpRequest(s.t, { header })).status).toBe(200);
    const res = await search(payer.wallet);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-balance-remaining')).toBe('4.990000');
    const analytics = await s.t.request('/billing/usage-analytics?lookback=1d&include=totals', {
      key: null,
      headers: { 'SIGN-IN-WITH-X': await signIn(payer.wallet) },
    });
    expect(analytics.status).toBe(200);
    const body = await analytics.json();
    expect(body.totals).toEqual({ USD: 0, DIEM: 0, USDC: 0.01 });
    expect(body.byDate[0].USD).toBe(0.01);
    expect(body.byKey).toEqual([
      { apiKeyId: null, description: 'Wallet sign-in (no API key)', totalUsd: 0.01, totalDiem: 0, totalUnits: 1 },
    ]);
  });
});
