import { x402Client } from '@x402/core/client';
import { encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment } from '@x402/fetch';
import { Wallet } from 'ethers';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import type { Logger } from '../../src/log';
import type { TestBackend } from '../helpers/backends';
import { startTestApp, type TestApp } from '../helpers/app';
import { startFacilitator, type FixtureFacilitator } from '../fixtures/x402-facilitator';
import { evmSignIn } from '../wallet/sign';

/** The operator's receiving addresses in the tests. */
export const PAY_TO_BASE = '0x2670B922ef37C7Df47158725C0CC407b5382293F';
export const PAY_TO_SOLANA = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
/** app.handle needs a realistic host; the tests' public URL is that origin. */
export const ORIGIN = 'http://localhost';

/** An app with x402 payments configured against a fresh fixture facilitator; `log` reads what it logs. */
export async function startPaymentsApp(
  backend: TestBackend,
  payments: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
  log?: Logger,
) {
  const facilitator = startFacilitator();
  // `extra.wallets` (sign-in, web3 keys) joins the payments section rather than replacing it.
  const { wallets, ...rest } = extra as { wallets?: Record<string, unknown> };
  const t = await startTestApp({
    backend,
    log,
    config: {
      publicUrl: ORIGIN,
      wallets: {
        ...wallets,
        payments: {
          facilitatorUrl: facilitator.url,
          payTo: { base: PAY_TO_BASE, solana: PAY_TO_SOLANA },
          verifyTimeoutMs: 1000,
          settleTimeoutMs: 1000,
          trustForwardedFor: true,
          ...payments,
        },
      },
      ...rest,
    },
  });
  return {
    t,
    facilitator,
    async close() {
      await t.close();
      facilitator.stop();
    },
  };
}

/** A fetch that goes through `app.handle` (an x402 client library wraps it). */
export function appFetch(t: TestApp): typeof fetch {
  return (async (input: RequestInfo | URL, init?: RequestInit) => t.app.handle(new Request(input, init))) as typeof fetch;
}

/** A fresh random EVM account (viem) and the ethers wallet of the same key, for sign-in. */
export function newPayer(): { account: PrivateKeyAccount; wallet: Wallet } {
  const key = generatePrivateKey();
  return { account: privateKeyToAccount(key), wallet: new Wallet(key) };
}

/** `@x402/fetch` over the app, paying with `account` on Base. */
export function payingFetch(t: TestApp, account: PrivateKeyAccount): typeof fetch {
  // The client's default cap is $1 a payment; a top-up is 5 USD or more.
  const client = new x402Client().register('eip155:*', new ExactEvmScheme(account)).setSpendControls({ maxAmountPerPayment: '$100' });
  return wrapFetchWithPayment(appFetch(t), client) as typeof fetch;
}

/** Asks for the top-up 402 and signs its Base entry with @x402/evm (without sending it). */
export async function signedTopUp(t: TestApp, account: PrivateKeyAccount, amountUsd?: number, tweak?: (r: PaymentRequirements) => void) {
  const res = await topUpRequest(t, amountUsd === undefined ? {} : { json: { amountUsd } });
  const required = (await res.json()) as { accepts: PaymentRequirements[] };
  const requirement = structuredClone(required.accepts.find((a) => a.network === 'eip155:8453') as PaymentRequirements);
  tweak?.(requirement);
  const scheme = new ExactEvmScheme(account);
  const partial = await scheme.createPaymentPayload(2, requirement);
  const payload = { ...partial, accepted: requirement, resource: { url: `${ORIGIN}/api/v1/x402/top-up` } } as PaymentPayload;
  return { payload, header: encodePaymentSignatureHeader(payload) };
}

/** POST /x402/top-up from a given client IP (X-Forwarded-For is trusted in these tests). */
export function topUpRequest(t: TestApp, init: { header?: string; headerName?: string; json?: unknown; ip?: string } = {}) {
  const headers: Record<string, string> = {
    'x-forwarded-for': init.ip ?? `10.0.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`,
  };
  if (init.header) headers[init.headerName ?? 'PAYMENT-SIGNATURE'] = init.header;
  return t.request('/x402/top-up', { method: 'POST', key: null, headers, json: init.json ?? {} });
}

/** A GET with the wallet's SIGN-IN-WITH-X header (domain `localhost`, the tests' public URL). */
export async function signedGet(t: TestApp, path: string, wallet: Wallet) {
  return t.request(path, {
    key: null,
    headers: { 'SIGN-IN-WITH-X': await evmSignIn(wallet as never, { domain: 'localhost', uri: ORIGIN }) },
  });
}
