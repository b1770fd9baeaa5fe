import type { ExtraCharge } from '../billing/meter';
import { formatMicros } from '../billing/money';

/** Pico-USD per micro-USD: a credit's price is kept in pico-USD so $0.0000007 is an integer. */
const PICO_PER_MICRO = 1_000_000n;

/** Parses a USD decimal with up to 12 fraction digits ("0.0000007") into integer pico-USD. */
export function picoUsd(usd: string): bigint {
  const [whole = '0', fraction = ''] = usd.split('.');
  return BigInt(whole) * 10n ** 12n + BigInt(fraction.padEnd(12, '0'));
}

/** The price of one call of `credits` in micro-USD, rounded up. */
export function callMicros(credits: number, creditPico: bigint): number {
  return Number((BigInt(credits) * creditPico + PICO_PER_MICRO - 1n) / PICO_PER_MICRO);
}

/**
 * The line items of a request's calls: one per credit amount (`rpc-<network>-<credits>cr`),
 * its units the number of calls at that amount and its price the price of one such call,
 * so every amount is integer micro-USD and a batch is the sum of its calls.
 */
export function creditCharges(network: string, credits: readonly number[], creditPico: bigint): ExtraCharge[] {
  const counts = new Map<number, number>();
  for (const c of credits) counts.set(c, (counts.get(c) ?? 0) + 1);
  return [...counts].map(([c, units]) => ({ sku: `rpc-${network}-${c}cr`, units, unitPriceMicros: callMicros(c, creditPico) }));
}

/** `X-Svc-RPC-Cost-USD`: a charge in micro-USD with 8 decimal places. */
export const costHeader = (usdMicros: number) => `${formatMicros(usdMicros)}00`;

/** The sum of a list of credits. */
export const sumCredits = (credits: readonly number[]) => credits.reduce((a, b) => a + b, 0);
