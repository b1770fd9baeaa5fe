import { describe, expect, test } from 'bun:test';
import { costLines, pricingOf, reservationMicros } from '../../src/billing/pricing';
import { metered } from '../../src/chat/settle';
import { createCatalog } from '../../src/models/catalog';

const catalog = createCatalog({
  models: [
    {
      id: 'c',
      type: 'text',
      routes: [{ provider: 'p', weight: 1 }],
      pricing: { input: '3', output: '15', cacheInput: '0.30', cacheWrite: '3.75' },
      traits: [],
    },
    { id: 'plain', type: 'text', routes: [{ provider: 'p', weight: 1 }], pricing: { input: '1', output: '2' }, traits: [] },
  ] as never,
  simulatorProviders: new Set(),
});
const c = catalog.get('c')!;

describe('prompt caching priced exactly', () => {
  test('cache reads at cacheInput and cache writes at cacheWrite, each its own line, the rest at input', () => {
    const lines = costLines(c, pricingOf(c), {
      promptTokens: 3000,
      cachedPromptTokens: 1000,
      cacheWritePromptTokens: 1500,
      completionTokens: 10,
      executionMs: 1,
    });
    expect(lines).toEqual([
      { sku: 'c-llm-input-mtoken', units: '0.000500', pricePerUnitUsd: '3.000000', usdMicros: 1500 },
      { sku: 'c-llm-output-mtoken', units: '0.000010', pricePerUnitUsd: '15.000000', usdMicros: 150 },
      { sku: 'c-llm-cache-input-mtoken', units: '0.001000', pricePerUnitUsd: '0.300000', usdMicros: 300 },
      { sku: 'c-llm-cache-write-mtoken', units: '0.001500', pricePerUnitUsd: '3.750000', usdMicros: 5625 },
    ]);
  });

  test('cache counts larger than the prompt are capped: reads first, then writes; never a negative line', () => {
    const lines = costLines(c, pricingOf(c), {
      promptTokens: 100,
      cachedPromptTokens: 80,
      cacheWritePromptTokens: 500,
      completionTokens: 0,
      executionMs: 1,
    });
    expect(lines.map((l) => [l.sku, l.units])).toEqual([
      ['c-llm-input-mtoken', '0.000000'],
      ['c-llm-output-mtoken', '0.000000'],
      ['c-llm-cache-input-mtoken', '0.000080'],
      ['c-llm-cache-write-mtoken', '0.000020'],
    ]);
  });

  test('a reservation prices the prompt at the dearer of input and cacheWrite, so a cache write never exceeds it', () => {
    expect(reservationMicros(pricingOf(c), 1000, 0)).toBe(3750);
    expect(reservationMicros(pricingOf(catalog.get('plain')!), 1000, 0)).toBe(1000);
  });

  test("a chat's usage carries both cache counts to the meter", () => {
    const usage = metered(
      {
        prompt_tokens: 30,
        completion_tokens: 2,
        total_tokens: 32,
        prompt_tokens_details: { cached_tokens: 10, cache_creation_input_tokens: 15 },
      },
      [],
      performance.now(),
    );
    expect(usage).toMatchObject({ promptTokens: 30, cachedPromptTokens: 10, cacheWritePromptTokens: 15 });
  });
});
