import type { PluginCharge } from '@svc/plugin-sdk';
import type { CacheOptions } from './options';

/** The SKU of a hit on `model` in the ledger and /billing/usage. */
export function hitSku(model: string): string {
  return `${model}-cache-hit`;
}

/**
 * What a hit is charged: one line at the model's cache price (the operator's per-model price,
 * else the default; free unless set), a share of the original answer's cost plus a fixed price.
 * The line is written even at zero, so the hit shows in the usage history.
 */
export function hitCharges(model: string, originalMicros: number, options: CacheOptions): PluginCharge[] {
  const price = options.prices[model] ?? options.price;
  const micros = Math.round(Math.max(0, originalMicros) * (price.fraction ?? 0)) + (price.micros ?? 0);
  return [{ sku: hitSku(model), units: 1, unitPriceMicros: micros }];
}
