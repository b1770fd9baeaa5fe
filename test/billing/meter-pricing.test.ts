import { describe, expect, test } from 'bun:test';
import { createCatalog } from '../../src/models/catalog';
import { costLines, inCurrency, pricingOf, reservationMicros, unitCharge } from '../../src/billing/pricing';
import { parseBillingConfig } from '../../src/billing/config';

const catalog = createCatalog({
  models: [
    {
      id: 'm',
      type: 'text',
      routes: [{ provider: 'p', weight: 1 }],
      pricing: { input: '0.70', output: '2.80', cacheInput: '0.35', diemPerUsd: '1.5' },
      traits: [],
    },
    { id: 'img', type: 'image', routes: [{ provider: 'p', weight: 1 }], pricing: { perUnit: '0.04' }, traits: [] },
  ] as never,
  simulatorProviders: new Set(),
});
const model = catalog.get('m')!;

describe('pricing', () => {
  test('is parsed once per model', () => {
    expect(pricingOf(model)).toBe(pricingOf(model));
    expect(pricingOf(model)).toMatchObject({ input: 700_000, output: 2_800_000, cacheInput: 350_000, diemPerUsd: 1_500_000 });
  });

  test('cached prompt tokens at the cache price, extras of one sku summed, each line rounded up', () => {
    const lines = costLines(model, pricingOf(model), {
      promptTokens: 1000,
      cachedPromptTokens: 400,
      completionTokens: 3,
      executionMs: 1,
      extras: [
        { sku: 'web-search', units: 1, unitPriceMicros: 10_000 },
        { sku: 'web-search', units: 2, unitPriceMicros: 10_000 },
      ],
    });
    expect(lines).toEqual([
      { sku: 'm-llm-input-mtoken', units: '0.000600', pricePerUnitUsd: '0.700000', usdMicros: 420 },
      { sku: 'm-llm-output-mtoken', units: '0.000003', pricePerUnitUsd: '2.800000', usdMicros: 9 }, // 8.4 rounded up
      { sku: 'm-llm-cache-input-mtoken', units: '0.000400', pricePerUnitUsd: '0.350000', usdMicros: 140 },
      { sku: 'web-search', units: '3', pricePerUnitUsd: '0.010000', usdMicros: 30_000 },
    ]);
  });

  test('the reservation prices the estimate like a settlement; DIEM converts at the model rate, rounded up', () => {
    const p = pricingOf(model);
    expect(reservationMicros(p, 1000, 3, [{ sku: 's', units: 1, unitPriceMicros: 7 }])).toBe(700 + 9 + 7);
    expect(inCurrency(p, 'USD', 9)).toBe(9);
    expect(inCurrency(p, 'DIEM', 9)).toBe(14); // 13.5 rounded up
  });
});

describe('per-unit pricing', () => {
  test('an image, audio second or RPC call is a line item at pricing.perUnit, reserved and settled like tokens', () => {
    const image = catalog.get('img')!;
    const charge = unitCharge(image, 2);
    expect(charge).toEqual({ sku: 'img-unit', units: 2, unitPriceMicros: 40_000 });
    const p = pricingOf(image);
    expect(reservationMicros(p, 0, 0, [charge])).toBe(80_000);
    const lines = costLines(image, p, { promptTokens: 0, completionTokens: 0, executionMs: 5, extras: [charge] });
    // Only what an image costs: no zero-priced token rows for a per-unit model.
    expect(lines).toEqual([{ sku: 'img-unit', units: '2', pricePerUnitUsd: '0.040000', usdMicros: 80_000 }]);
  });

  test('text and embeddings keep their token rows even at zero tokens', () => {
    const zero = { promptTokens: 0, completionTokens: 0, executionMs: 1 };
    expect(costLines(model, pricingOf(model), zero).map((l) => l.sku)).toEqual(['m-llm-input-mtoken', 'm-llm-output-mtoken']);
    const emb = createCatalog({
      models: [{ id: 'e', type: 'embedding', routes: [{ provider: 'p', weight: 1 }], pricing: { input: '1' }, traits: [] }] as never,
      simulatorProviders: new Set(),
    }).get('e')!;
    expect(costLines(emb, pricingOf(emb), zero).map((l) => l.sku)).toEqual(['e-embedding-input-mtoken']);
  });
});

describe('billing config', () => {
  test("defaults: DIEM, bundled credits, USD, then the wallet's USDC for keys; USDC for wallets", () => {
    expect(parseBillingConfig({}).paymentOrder).toEqual({ apiKey: ['DIEM', 'BUNDLED_CREDITS', 'USD', 'USDC'], wallet: ['USDC'] });
  });
  test('a bad field is named', () => {
    expect(() => parseBillingConfig({ billing: { paymentOrder: { apiKey: ['EUR'] } } })).toThrow('billing.paymentOrder.apiKey');
    expect(() => parseBillingConfig({ billing: { holdTtlMs: 5 } })).toThrow('billing.holdTtlMs');
  });
});
