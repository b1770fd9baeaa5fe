import { Type as T, type Static } from '@sinclair/typebox';
import { ConfigError, parseConfigSection } from '../../src/config-fields';

/** Limits and price of scraping URLs from user messages (enable_web_scraping). */
const ScrapingSchema = T.Object({
  timeoutMs: T.Integer({ minimum: 100, default: 10_000, description: 'Per URL: connect, redirects and body' }),
  maxBytes: T.Integer({ minimum: 1024, default: 2_000_000, description: 'Largest page downloaded' }),
  maxCharsPerPage: T.Integer({ minimum: 100, default: 8_000, description: 'Readable text kept per page' }),
  priceMicros: T.Integer({ minimum: 0, default: 5_000, description: 'Charged per successfully scraped URL, micro-USD' }),
});

/**
 * The config's free-form `search` section: the web search provider (SearXNG JSON API or
 * Brave Search API), its limits, and the extra charges of the web tools (micro-USD).
 */
export const SearchConfigSchema = T.Object(
  {
    provider: T.Optional(
      T.Union([T.Literal('searxng'), T.Literal('brave'), T.Literal('simulated'), T.Literal('none')], {
        description: 'Unset: the simulated engine when every text model is simulated, else none. none: web search is off.',
      }),
    ),
    baseUrl: T.Optional(
      T.String({
        pattern: '^https?://',
        description: 'SearXNG instance URL (required for searxng); Brave default https://api.search.brave.com',
      }),
    ),
    apiKey: T.Optional(T.String({ minLength: 1, description: 'Brave X-Subscription-Token (required for brave)' })),
    timeoutMs: T.Integer({ minimum: 100, default: 5_000 }),
    maxResults: T.Integer({ minimum: 1, maximum: 20, default: 5 }),
    priceMicros: T.Integer({ minimum: 0, default: 10_000, description: 'Charged per web search, micro-USD' }),
    xSearchPriceMicros: T.Integer({ minimum: 0, default: 25_000, description: 'Charged per request with native x-search, micro-USD' }),
    scraping: T.Object(ScrapingSchema.properties, { default: {} }),
  },
  { additionalProperties: false },
);

/** The validated `search` section. */
export type SearchConfig = Static<typeof SearchConfigSchema>;

/** Validates `config.search` (absent means defaults, no provider); throws ConfigError naming the field. */
export function parseSearchConfig(raw: Record<string, unknown> | undefined): SearchConfig {
  // Value.Default fills nested defaults only when the object exists.
  const section = { ...raw };
  section.scraping ??= {};
  const config = parseConfigSection(SearchConfigSchema, section, 'search');
  if (config.provider === 'searxng' && !config.baseUrl)
    throw new ConfigError('config: invalid field "search.baseUrl": required for the searxng provider');
  if (config.provider === 'brave' && !config.apiKey)
    throw new ConfigError('config: invalid field "search.apiKey": required for the brave provider');
  return config;
}
