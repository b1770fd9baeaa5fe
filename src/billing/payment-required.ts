import { paymentRequired, type ServiceError } from '../http/errors';
import { formatMicros, MICROS } from './money';
import type { SpendClass } from './mirror-init';

/** 402 for API-key callers without enough balance in any currency of their payment order. */
export const insufficientBalance = (): ServiceError => paymentRequired('Insufficient USD or Diem balance to complete request.');

/** 402 for an API key over its consumption limit in the class that would have paid. */
export function keyLimitExceeded(cls: SpendClass): ServiceError {
  return paymentRequired(`API key ${cls === 'diem' ? 'DIEM' : cls === 'vcu' ? 'VCU' : 'USD'} spend limit exceeded`);
}

const usd = (micros: number) => Number(formatMicros(micros));

/**
 * 402 variant 3 (API-NOTES 12) for a signed-in wallet whose USDC balance does not cover the
 * request: how much is there, how much to top up, and how (POST {basePath}/x402/top-up).
 */
export function walletPaymentRequired(o: {
  balanceMicros: number;
  neededMicros: number;
  minimumTopUpUsd: number;
  basePath: string;
}): ServiceError {
  const shortfall = Math.max(0, o.neededMicros - o.balanceMicros);
  const suggested = Math.max(o.minimumTopUpUsd, Math.ceil(shortfall / MICROS));
  const topUp = `POST ${o.basePath}/x402/top-up`;
  return paymentRequired('Payment required', {
    code: 'PAYMENT_REQUIRED',
    reason: 'insufficient_balance',
    message: `Wallet balance of ${formatMicros(o.balanceMicros, 2)} USD does not cover this request (up to ${formatMicros(o.neededMicros)} USD).`,
    currentBalanceUsd: usd(o.balanceMicros),
    minimumBalanceUsd: usd(o.neededMicros),
    suggestedTopUpUsd: suggested,
    minimumTopUpUsd: o.minimumTopUpUsd,
    supportedTokens: ['USDC'],
    supportedChains: ['base', 'solana'],
    topUpInstructions: {
      step1: `Call ${topUp} without a payment header to get the payment requirements (USDC on Base or Solana).`,
      step2: 'Sign one of the offered payments with your wallet.',
      step3: `Repeat ${topUp} with the signed payment in the PAYMENT-SIGNATURE header; the credit is added to this wallet's balance.`,
      network: 'eip155:8453',
      minimumAmountUsd: o.minimumTopUpUsd,
    },
  });
}
