import { parseWalletsConfig, publicOrigin } from '../auth/wallet-config';
import type { Config } from '../config';
import { paymentRequired, type ServiceError } from '../http/errors';
import { baseRequirement, paymentRequiredHeader, signInChains, signInExtension, signInInfo } from '../x402/challenges';
import { USDC_BASE, USDC_DECIMALS } from '../x402/config';
import { formatMicros, MICROS } from './money';
import type { SpendClass } from './spend-class';

/** 402 for API-key callers without enough balance in any currency of their payment order. */
export const insufficientBalance = (): ServiceError => paymentRequired('Insufficient USD or Diem balance to complete request.');

/** 402 for an API key over its consumption limit in the class that would have paid. */
export function keyLimitExceeded(cls: SpendClass): ServiceError {
  return paymentRequired(`API key ${cls === 'diem' ? 'DIEM' : cls === 'vcu' ? 'VCU' : 'USD'} spend limit exceeded`);
}

const usd = (micros: number) => Number(formatMicros(micros));

/** The config parts the wallet 402 reads (where to pay, which chains sign in, the public URL). */
export type WalletChallengeConfig = Partial<Pick<Config, 'wallets' | 'publicUrl' | 'port'>>;

/**
 * 402 variant 3 (API-NOTES 12) for a signed-in wallet whose USDC balance does not cover the
 * request: how much is there, how much to top up, and how (POST {basePath}/x402/top-up, to
 * `receiverWallet` in USDC), a fresh sign-in challenge, and the same as an x402
 * PaymentRequired in the PAYMENT-REQUIRED header so x402 clients can read it.
 */
export function walletPaymentRequired(o: {
  balanceMicros: number;
  neededMicros: number;
  minimumTopUpUsd: number;
  basePath: string;
  config?: WalletChallengeConfig;
  nowMs?: number;
}): ServiceError {
  const shortfall = Math.max(0, o.neededMicros - o.balanceMicros);
  const suggested = Math.max(o.minimumTopUpUsd, Math.ceil(shortfall / MICROS));
  const topUp = `POST ${o.basePath}/x402/top-up`;
  const config = o.config ?? {};
  const wallets = parseWalletsConfig(config);
  const origin = publicOrigin({ publicUrl: config.publicUrl, port: config.port ?? 8080 });
  const topUpUrl = `${origin}${o.basePath}/x402/top-up`;
  const nowMs = o.nowMs ?? Date.now();
  const base = baseRequirement(wallets.payments, suggested * MICROS);
  const header = paymentRequiredHeader({
    x402Version: 2,
    error: 'insufficient_balance',
    resource: { url: topUpUrl, description: 'Top up the wallet balance', mimeType: 'application/json' },
    accepts: base ? [base] : [],
    extensions: signInExtension(wallets.siwx, origin, `${origin}${o.basePath}`, nowMs),
  });
  return paymentRequired(
    'Payment required',
    {
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
        receiverWallet: wallets.payments.payTo.base ?? null,
        tokenAddress: USDC_BASE,
        tokenDecimals: USDC_DECIMALS,
        network: 'eip155:8453',
        minimumAmountUsd: o.minimumTopUpUsd,
      },
      siwxChallenge: {
        info: signInInfo(origin, `${origin}${o.basePath}`, nowMs, 600),
        supportedChains: signInChains(wallets.siwx),
      },
    },
    header,
  );
}
