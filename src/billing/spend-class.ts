import type { Currency } from './credit';

/** The spend classes of key limits (spec 2.3): usd covers USD, bundled credits and a wallet's USDC. */
export type SpendClass = 'usd' | 'diem' | 'vcu';

/** The key-limit class a currency's spend counts against: USD, bundled credits and a wallet's USDC are all dollars. */
export function spendClass(currency: Currency): SpendClass | null {
  if (currency === 'USD' || currency === 'BUNDLED_CREDITS' || currency === 'USDC') return 'usd';
  if (currency === 'DIEM') return 'diem';
  if (currency === 'VCU') return 'vcu';
  return null;
}
