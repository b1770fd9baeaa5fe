import type { PaymentRequired, PaymentRequirements } from '@x402/core/types';
import { safeBase64Encode } from '@x402/core/utils';
import { randomBytes } from 'node:crypto';
import type { WalletsConfig } from '../auth/wallet-config';
import { BASE_MAINNET, USDC_BASE, type PaymentsConfig } from './config';
import { SIGN_IN_PAYLOAD_SCHEMA, SIGN_IN_WITH_X } from './sign-in-schema';

/** The statement wallets sign; the reference's 402 challenge wording. */
export const SIGN_IN_STATEMENT = 'Sign in to svc API';

/** The Base USDC requirement built from config alone (no facilitator round trip), for 402s that must answer at once. */
export function baseRequirement(payments: PaymentsConfig, amountMicros: number): PaymentRequirements | null {
  if (!payments.payTo.base) return null;
  return {
    scheme: 'exact',
    network: BASE_MAINNET,
    asset: USDC_BASE,
    amount: String(amountMicros),
    payTo: payments.payTo.base,
    maxTimeoutSeconds: payments.maxTimeoutSeconds,
    extra: { name: 'USD Coin', version: '2' },
  };
}

/** The sign-in challenge fields (EIP-4361 / SIWS) for a message the wallet signs for `origin`. */
export function signInInfo(origin: string, resourceUrl: string, nowMs: number, ttlSeconds: number) {
  return {
    domain: new URL(origin).host,
    uri: resourceUrl,
    version: '1',
    nonce: randomBytes(8).toString('hex'),
    issuedAt: new Date(nowMs).toISOString(),
    expirationTime: new Date(nowMs + ttlSeconds * 1000).toISOString(),
    statement: SIGN_IN_STATEMENT,
  };
}

/** The chains a wallet may sign in with, as x402 `supportedChains` entries. */
export function signInChains(siwx: WalletsConfig['siwx']) {
  return [
    ...siwx.evmChainIds.map((id) => ({ chainId: `eip155:${id}`, type: 'eip191' as const })),
    { chainId: siwx.solanaChainId, type: 'ed25519' as const },
  ];
}

/** The `sign-in-with-x` extension of a PaymentRequired, as `@x402/extensions` clients read it. */
export function signInExtension(siwx: WalletsConfig['siwx'], origin: string, resourceUrl: string, nowMs: number) {
  return {
    [SIGN_IN_WITH_X]: {
      info: signInInfo(origin, resourceUrl, nowMs, 300),
      supportedChains: signInChains(siwx),
      schema: SIGN_IN_PAYLOAD_SCHEMA,
    },
  };
}

/**
 * The PAYMENT-REQUIRED header value: the object as JSON, base64-encoded with @x402/core's own
 * encoder (what its `encodePaymentRequiredHeader` does, from the light `utils` entry point).
 */
export function paymentRequiredHeader(required: PaymentRequired): Record<string, string> {
  return { 'payment-required': safeBase64Encode(JSON.stringify(required)) };
}
