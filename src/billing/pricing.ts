import type { ModelEntry } from '../models/catalog';
import type { Currency } from './credit';
import type { ExtraCharge, MeteredUsage, MeterOpenInput } from './meter';
import { formatMicros, MICROS, toMicros, tokenCostMicros } from './money';

/** A model's prices in micro-USD per 1M tokens, parsed once per model. */
export interface ModelPricing {
  input: number;
  output: number;
  cacheInput: number;
  cacheWrite: number;
  /** Micro-DIEM per 1 USD (1_000_000 when DIEM pays 1:1). */
  diemPerUsd: number;
  /** USD per 1M tokens as exact strings for the ledger's pricePerUnitUsd. */
  inputText: string;
  outputText: string;
  cacheInputText: string;
  cacheWriteText: string;
}

const cache = new WeakMap<ModelEntry, ModelPricing>();

/** The prices of a call without a catalog model: no tokens, everything in its line items; DIEM 1:1. */
const UNPRICED: ModelPricing = Object.freeze({
  input: 0,
  output: 0,
  cacheInput: 0,
  cacheWrite: 0,
  diemPerUsd: MICROS,
  inputText: '0',
  outputText: '0',
  cacheInputText: '0',
  cacheWriteText: '0',
});

/** The model's parsed prices; computed on first use and kept with the catalog entry. No model: only line items cost. */
export function pricingOf(model: ModelEntry | null): ModelPricing {
  if (!model) return UNPRICED;
  let p = cache.get(model);
  if (!p) {
    const prices = model.prices;
    const rate = model.config.pricing.diemPerUsd;
    p = {
      input: prices.inputPerMillion,
      output: prices.outputPerMillion,
      cacheInput: prices.cacheInputPerMillion,
      cacheWrite: prices.cacheWritePerMillion,
      diemPerUsd: rate === undefined ? MICROS : toMicros(rate),
      inputText: formatMicros(prices.inputPerMillion),
      outputText: formatMicros(prices.outputPerMillion),
      cacheInputText: formatMicros(prices.cacheInputPerMillion),
      cacheWriteText: formatMicros(prices.cacheWritePerMillion),
    };
    cache.set(model, p);
  }
  return p;
}

/** A priced line item in micro-USD. */
export interface CostLine {
  sku: string;
  /** Exact decimal units (million tokens for tokens, the plugin's units for extras). */
  units: string;
  pricePerUnitUsd: string;
  usdMicros: number;
}

function extrasCost(extras: readonly ExtraCharge[] | undefined): number {
  let sum = 0;
  if (extras) for (const e of extras) sum += Math.ceil(e.units * e.unitPriceMicros);
  return sum;
}

/** Maximum cost (micro-USD) of a request: the estimate priced like a settlement, plus declared extras. */
export function reservationMicros(
  p: ModelPricing,
  promptTokens: number,
  completionTokens: number,
  extras?: readonly ExtraCharge[],
): number {
  // A prompt written to the provider's cache may cost more than plain input (cacheWrite): reserved at the dearer.
  const prompt = Math.max(p.input, p.cacheWrite);
  return tokenCostMicros(promptTokens, prompt) + tokenCostMicros(completionTokens, p.output) + extrasCost(extras);
}

/** The maximum cost (micro-USD) of a call the meter opens with `input`: what it reserves. */
export function openedReservationMicros(
  input: Pick<MeterOpenInput, 'model' | 'priceAs' | 'estimatedPromptTokens' | 'maxCompletionTokens' | 'extras'>,
): number {
  return reservationMicros(pricingOf(input.priceAs ?? input.model), input.estimatedPromptTokens, input.maxCompletionTokens, input.extras);
}

/**
 * The line items of a settlement. Cached prompt tokens are priced at `cacheInput`, prompt
 * tokens written to the cache at `cacheWrite` (separate lines); each line
 * is rounded up on its own, so the sum equals what the reservation formula gives.
 */
export function costLines(model: ModelEntry | null, p: ModelPricing, usage: MeteredUsage): CostLine[] {
  // A model priced per unit (images) bills its line items alone when it consumed no tokens;
  // text and embeddings keep their token rows.
  const perUnitOnly =
    model && model.type !== 'text' && model.type !== 'embedding' && usage.promptTokens === 0 && usage.completionTokens === 0;
  const lines = model && !perUnitOnly && !usage.extrasOnly ? tokenLines(model, p, usage) : [];
  if (usage.extras)
    for (const e of usage.extras) {
      if (!(e.units > 0)) continue;
      const micros = Math.ceil(e.units * e.unitPriceMicros);
      // The ledger holds one row per (request, sku): repeated extras of one sku are summed.
      const same = lines.find((l) => l.sku === e.sku);
      if (same) {
        same.units = String(Number(same.units) + e.units);
        same.usdMicros += micros;
      } else lines.push({ sku: e.sku, units: String(e.units), pricePerUnitUsd: formatMicros(e.unitPriceMicros), usdMicros: micros });
    }
  return lines;
}

/** The SKUs of a model's token lines. */
interface TokenSkus {
  input: string;
  output: string;
  cacheInput: string;
  cacheWrite: string;
}

const skuCache = new WeakMap<ModelEntry, TokenSkus>();

/** The model's token SKUs, built once per catalog entry: four strings a settlement otherwise. */
function tokenSkus(model: ModelEntry): TokenSkus {
  let skus = skuCache.get(model);
  if (!skus) {
    const kind = model.type === 'text' ? 'llm' : model.type;
    // Speech models count input characters where others count tokens (priced per 1M of either).
    const unit = model.type === 'tts' ? 'mchar' : 'mtoken';
    skus = {
      input: `${model.id}-${kind}-input-${unit}`,
      output: `${model.id}-${kind}-output-mtoken`,
      cacheInput: `${model.id}-${kind}-cache-input-mtoken`,
      cacheWrite: `${model.id}-${kind}-cache-write-mtoken`,
    };
    skuCache.set(model, skus);
  }
  return skus;
}

/** The token line items of a catalog model's settlement. */
function tokenLines(model: ModelEntry, p: ModelPricing, usage: MeteredUsage): CostLine[] {
  const cached = Math.min(Math.max(0, usage.cachedPromptTokens ?? 0), usage.promptTokens);
  const written = Math.min(Math.max(0, usage.cacheWritePromptTokens ?? 0), usage.promptTokens - cached);
  const fresh = usage.promptTokens - cached - written;
  const sku = tokenSkus(model);
  // Text models bill input and output (even zero, so every chat has both rows); other token-priced
  // models (embeddings) only what they consume.
  const lines: CostLine[] = [
    {
      sku: sku.input,
      units: formatMicros(fresh),
      pricePerUnitUsd: p.inputText,
      usdMicros: tokenCostMicros(fresh, p.input),
    },
  ];
  if (model.type === 'text' || usage.completionTokens > 0)
    lines.push({
      sku: sku.output,
      units: formatMicros(usage.completionTokens),
      pricePerUnitUsd: p.outputText,
      usdMicros: tokenCostMicros(usage.completionTokens, p.output),
    });
  if (cached > 0)
    lines.push({
      sku: sku.cacheInput,
      units: formatMicros(cached),
      pricePerUnitUsd: p.cacheInputText,
      usdMicros: tokenCostMicros(cached, p.cacheInput),
    });
  if (written > 0)
    lines.push({
      sku: sku.cacheWrite,
      units: formatMicros(written),
      pricePerUnitUsd: p.cacheWriteText,
      usdMicros: tokenCostMicros(written, p.cacheWrite),
    });
  return lines;
}

/** Converts micro-USD to the paying currency's micro-units (DIEM at the model's rate, rounded up). */
export function inCurrency(p: ModelPricing, currency: Currency, usdMicros: number): number {
  if (currency !== 'DIEM' || p.diemPerUsd === MICROS) return usdMicros;
  return Number((BigInt(usdMicros) * BigInt(p.diemPerUsd) + 999_999n) / 1_000_000n);
}

/**
 * A per-unit line item (an image, an audio second, an RPC call) at the model's
 * `pricing.perUnit`. Unit-priced routes open and settle the meter with no tokens and this
 * as their extra, so they share the reservation, payment order, key limits and ledger.
 */
export function unitCharge(model: ModelEntry, units: number, sku = `${model.id}-unit`): ExtraCharge {
  return { sku, units, unitPriceMicros: model.prices.perUnit };
}
