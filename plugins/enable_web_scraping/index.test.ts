import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startWebPages, type WebPages } from '../../test/fixtures/web-pages';
import { testContext, testRequest } from '../../test/plugins-e2e/context';
import { enableWebScraping as plugin } from './index';

let site: WebPages;
beforeAll(() => {
  site = startWebPages();
});
afterAll(() => site.close());

const ctxWith = (allowPrivateUrls: boolean) =>
  testContext({
    params: { enable_web_scraping: true },
    config: { allowPrivateUrls, search: { scraping: { priceMicros: 3000, timeoutMs: 500 } } },
  });
const ask = (text: string) => testRequest([{ role: 'user', content: text }]);

describe('enable_web_scraping', () => {
  test('active only when true; suffix key; default false', () => {
    expect(plugin.isActive(testContext({ params: { enable_web_scraping: true } }))).toBe(true);
    expect(plugin.isActive(testContext({ params: { enable_web_scraping: false } }))).toBe(false);
    expect(plugin.suffixKeys).toEqual(['enable_web_scraping']);
    expect(plugin.parameters.enable_web_scraping!.default).toBe(false);
  });

  test('scrapes the URLs of the last user message into the system prompt; only successes are charged', async () => {
    const ctx = ctxWith(true);
    const req = ask(`Compare ${site.origin}/article and ${site.origin}/second, also ${site.origin}/missing and ${site.origin}/image.`);
    await plugin.transformRequest!(req, ctx);
    const system = req.messages[0]!;
    expect(system.role).toBe('system');
    const text = system.content as string;
    expect(text).toContain(`Page: ${site.origin}/article (Otters of the Pacific)`);
    expect(text).toContain('Sea otters use rocks as tools');
    expect(text).toContain('lighthouses on rocky coasts');
    expect(text).toContain(`${site.origin}/missing could not be read: The server answered 404`);
    expect(text).not.toContain('SHOULD_NOT_APPEAR');
    expect(ctx.extraCharges).toEqual([{ sku: 'web-scrape', units: 2, unitPriceMicros: 3000 }]);
  });

  test('at most 5 URLs are fetched', async () => {
    const before = site.hits.get('/plain') ?? 0;
    const urls = [1, 2, 3, 4, 5, 6, 7].map((i) => `${site.origin}/plain?n=${i}`).join(' ');
    const ctx = ctxWith(true);
    await plugin.transformRequest!(ask(urls), ctx);
    expect((site.hits.get('/plain') ?? 0) - before).toBe(5);
    expect(ctx.extraCharges[0]!.units).toBe(5);
  });

  test('with the SSRF guard on, loopback URLs are refused: nothing fetched, nothing charged', async () => {
    const before = site.hits.get('/article') ?? 0;
    const ctx = ctxWith(false);
    const req = ask(`Read ${site.origin}/article`);
    await plugin.transformRequest!(req, ctx);
    expect(site.hits.get('/article') ?? 0).toBe(before);
    expect(req.messages[0]!.content).toContain('loopback address, which is not allowed');
    expect(ctx.extraCharges).toEqual([]);
  });

  test('a message without URLs is left alone', async () => {
    const ctx = ctxWith(true);
    const req = ask('no links');
    await plugin.transformRequest!(req, ctx);
    expect(req.messages).toEqual([{ role: 'user', content: 'no links' }]);
    expect(ctx.extraCharges).toEqual([]);
  });
});
