import { describe, expect, test } from 'bun:test';
import type { ChatCompletion } from '../../src/stream/wire';
import { testContext, testModel, testRequest } from '../../test/plugins-e2e/context';
import { enableXSearch as plugin } from './index';

const xModel = testModel({ supportsXSearch: true });

describe('enable_x_search', () => {
  test('active only when true on a model with supportsXSearch; no suffix key', () => {
    expect(plugin.isActive(testContext({ params: { enable_x_search: true }, model: xModel }))).toBe(true);
    expect(plugin.isActive(testContext({ params: { enable_x_search: true }, model: testModel({}) }))).toBe(false);
    expect(plugin.isActive(testContext({ params: { enable_x_search: false }, model: xModel }))).toBe(false);
    expect(plugin.suffixKeys).toBeUndefined();
  });

  test('sends the native search_parameters upstream and charges the configured price', () => {
    const ctx = testContext({ params: { enable_x_search: true }, model: xModel, config: { search: { xSearchPriceMicros: 42_000 } } });
    const req = testRequest([{ role: 'user', content: 'What is trending?' }]);
    plugin.transformRequest!(req, ctx);
    expect(req.search_parameters).toEqual({ mode: 'on', sources: [{ type: 'web' }, { type: 'x' }], return_citations: true });
    expect(ctx.extraCharges).toEqual([{ sku: 'x-search', units: 1, unitPriceMicros: 42_000 }]);
  });

  test("the upstream's citations are echoed as web_search_citations", async () => {
    const ctx = testContext({ params: { enable_x_search: true }, model: xModel });
    const body = { choices: [], citations: ['https://x.com/a/status/1', 'https://news.example/b'] } as unknown as ChatCompletion;
    await plugin.transformResponse!(body, ctx);
    expect(ctx.echo.web_search_citations).toEqual([
      { title: 'https://x.com/a/status/1', url: 'https://x.com/a/status/1' },
      { title: 'https://news.example/b', url: 'https://news.example/b' },
    ]);
  });
});
