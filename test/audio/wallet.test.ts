import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { EMBEDDED } from '../helpers/backends';
import { evmSignIn } from '../wallet/sign';
import { newPayer, ORIGIN, signedTopUp, startPaymentsApp, topUpRequest } from '../x402/helpers';
import { toneWav, uploadForm } from './helpers';

/** Audio paid by a signed-in wallet (simulator models): the 402 before any work, and X-Balance-Remaining after a charge. */
describe('audio paid by a wallet', () => {
  let s: Awaited<ReturnType<typeof startPaymentsApp>>;
  beforeAll(async () => {
    s = await startPaymentsApp(EMBEDDED);
  });
  afterAll(() => s.close());

  const signIn = async (wallet: ReturnType<typeof newPayer>['wallet']) => evmSignIn(wallet as never, { domain: 'localhost', uri: ORIGIN });

  test('a wallet without balance gets the 402 with top-up instructions', async () => {
    const { wallet } = newPayer();
    const res = await s.t.request('/audio/speech', {
      method: 'POST',
      key: null,
      headers: { 'content-type': 'application/json', 'SIGN-IN-WITH-X': await signIn(wallet) },
      body: JSON.stringify({ input: 'hello' }),
    });
    expect(res.status).toBe(402);
    expect(await res.json()).toMatchObject({ code: 'PAYMENT_REQUIRED', reason: 'insufficient_balance' });
  });

  test('a topped-up wallet: X-Balance-Remaining is its balance less the speech, then less the transcription', async () => {
    const payer = newPayer();
    const { header } = await signedTopUp(s.t, payer.account, 5);
    expect((await topUpRequest(s.t, { header })).status).toBe(200);
    // 1,000 characters of tts-kokoro at 3.50 USD per 1M characters: 0.0035 USD.
    const spoken = await s.t.request('/audio/speech', {
      method: 'POST',
      key: null,
      headers: { 'content-type': 'application/json', 'SIGN-IN-WITH-X': await signIn(payer.wallet) },
      body: JSON.stringify({ input: 'a'.repeat(1000), response_format: 'wav' }),
    });
    expect(spoken.status).toBe(200);
    expect(spoken.headers.get('x-balance-remaining')).toBe('4.996500');
    // 10 seconds of parakeet at 0.0001 USD a second: 0.001 USD.
    const heard = await s.t.request('/audio/transcriptions', {
      method: 'POST',
      key: null,
      headers: { 'SIGN-IN-WITH-X': await signIn(payer.wallet) },
      body: uploadForm(toneWav(10)),
    });
    expect(heard.status).toBe(200);
    expect(heard.headers.get('x-balance-remaining')).toBe('4.995500');
    // Streamed, the headers leave before the charge is known to have happened: the balance before the request.
    const streamed = await s.t.request('/audio/speech', {
      method: 'POST',
      key: null,
      headers: { 'content-type': 'application/json', 'SIGN-IN-WITH-X': await signIn(payer.wallet) },
      body: JSON.stringify({ input: 'a'.repeat(1000), response_format: 'wav', streaming: true }),
    });
    expect(streamed.status).toBe(200);
    expect(streamed.headers.get('x-balance-remaining')).toBe('4.995500');
    expect((await streamed.arrayBuffer()).byteLength).toBeGreaterThan(44);
  });
});
