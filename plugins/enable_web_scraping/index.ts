import { Type, definePlugin, extractUrls, lastUserText, prependSystemText, type ScrapeResult } from '@svc/plugin-sdk';

/** The line item of one successfully scraped URL. */
export const WEB_SCRAPE_SKU = 'web-scrape';

/** The system text that hands the scraped pages to the model. */
export function scrapeContext(results: ScrapeResult[]): string {
  const lines = ["The user's message links to the pages below; their readable text was fetched for you. Use it to answer."];
  for (const r of results) {
    if (r.ok) lines.push('', `Page: ${r.url}${r.title ? ` (${r.title})` : ''}`, r.text);
    else lines.push('', `Page: ${r.url} could not be read: ${r.error}`);
  }
  return lines.join('\n');
}

/**
 * `enable_web_scraping`: fetches up to 5 URLs of the last user message concurrently
 * through the SSRF guard (config `allowPrivateUrls`, `search.scraping` limits), adds their
 * readable text to the system prompt, and charges only the URLs that were read. Web search
 * is bypassed for such a message (see enable_web_search).
 */
export const enableWebScraping = definePlugin({
  name: 'enable_web_scraping',
  parameters: {
    enable_web_scraping: Type.Optional(
      Type.Boolean({
        default: false,
        description: 'Scrapes up to 5 URLs of the user message into the context; bypasses web search; charged per scraped URL.',
      }),
    ),
  },
  suffixKeys: ['enable_web_scraping'],
  isActive: (ctx) => ctx.params.enable_web_scraping === true,
  async transformRequest(req, ctx) {
    const urls = extractUrls(lastUserText(req));
    if (urls.length === 0) return;
    const { web } = ctx.services;
    const results = await web.scrape(urls, { signal: ctx.signal });
    const scraped = results.filter((r) => r.ok).length;
    if (scraped > 0) ctx.extraCharges.push({ sku: WEB_SCRAPE_SKU, units: scraped, unitPriceMicros: web.config.scraping.priceMicros });
    prependSystemText(req, scrapeContext(results));
  },
});
