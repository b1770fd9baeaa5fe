import { Elysia } from 'elysia';
import { parseAugmentConfig } from '../augment/config';
import {
  TextParserRequestSchema,
  TextParserResponseSchema,
  WebScrapeRequestSchema,
  WebScrapeResponseSchema,
  WebSearchRequestSchema,
  WebSearchResponseSchema,
} from '../augment/schema';
import { webScrape, type ScrapeSettings } from '../augment/scrape';
import { webSearch } from '../augment/search';
import { parseDocument } from '../augment/text-parser';
import type { AppDeps } from '../deps';
import type { Stages } from '../gates';
import { imageBodyParser, rejectUnknownFields } from '../images/body';
import { webToolsOf } from '../../providers/search';
import { errorResponses } from './responses';
import { withExample } from '../http/openapi-example';

const security: Record<string, string[]>[] = [{ BearerAuth: [] }, { siwx: [] }];
const tags = ['Augment'];
const AUTH =
  ' Accepts a Bearer API key (INFERENCE or ADMIN) or a SIGN-IN-WITH-X wallet; a wallet without balance gets a 402 with top-up instructions.';
/** Multipart only in effect: the upload must be a file (a string `file` is a 400 naming it). */
const parseTextParserBody = imageBodyParser({ filesOnly: ['file'] });

/**
 * The reference's Augment tag: web search, scrape to markdown and document text, each a
 * call priced by its line item alone (`meterWithoutModel`: admitted by the route's
 * account-wide limit, charged once on success, released on any failure).
 */
export function augmentRoutes(deps: AppDeps, stages: Stages) {
  // Validated now, so a broken `augment` section stops the start, not a request.
  const augment = parseAugmentConfig(deps.config);
  const web = webToolsOf(deps);
  const scrape: ScrapeSettings = {
    guard: {
      allowPrivate: deps.config.allowPrivateUrls,
      fetch: deps.fetch,
      timeoutMs: web.config.scraping.timeoutMs,
      maxBytes: web.config.scraping.maxBytes,
    },
    blockedHosts: augment.blockedHosts,
    priceMicros: web.config.scraping.priceMicros,
    maxChars: augment.scrapeMaxChars,
  };
  return new Elysia({ name: 'svc.routes.augment' })
    .use(stages)
    .post('/augment/search', ({ body, call }) => webSearch(body, call, web), {
      meterWithoutModel: true,
      parse: 'json',
      body: withExample(WebSearchRequestSchema, { query: 'sea otters sleeping habits' }),
      detail: {
        operationId: 'webSearch',
        summary: 'Search the web',
        tags,
        security,
        description:
          'Searches the web with the engine the operator configured (SearXNG, Brave, or the built-in simulated engine, whose results say so) ' +
          'and returns `{query, results[{title, url, content, date}]}`. Charged per search (`search.priceMicros`), only when the engine answered; ' +
          'no engine configured is a 503.' +
          AUTH,
        responses: {
          200: { description: 'The results', content: { 'application/json': { schema: WebSearchResponseSchema } } },
          ...errorResponses(400, 401, 402, 429, 502, 503, 504),
        } as never,
      },
    })
    .post('/augment/scrape', ({ body, call }) => webScrape(body, call, scrape), {
      meterWithoutModel: true,
      parse: 'json',
      body: withExample(WebScrapeRequestSchema, { url: 'https://example.com' }),
      detail: {
        operationId: 'webScrape',
        summary: 'Read a web page as markdown',
        tags,
        security,
        description:
          'Fetches a public web page (SSRF guard, size and time limits) and returns its main content as markdown. Hosts that block automated access (`augment.blockedHosts`: X/Twitter, Reddit by default) are refused at once with a 400. Charged per page (`search.scraping.priceMicros`), only when it gave content.' +
          AUTH,
        responses: {
          200: { description: 'The page as markdown', content: { 'application/json': { schema: WebScrapeResponseSchema } } },
          ...errorResponses(400, 401, 402, 429, 502, 504),
        } as never,
      },
    })
    .post(
      '/augment/text-parser',
      async function createTextParser({ body, call, set }) {
        const parsed = await parseDocument(body, call, augment.textParser);
        if (body.response_format !== 'text') return parsed;
        set.headers['content-type'] = 'text/plain; charset=utf-8';
        return parsed.text;
      },
      {
        meterWithoutModel: true,
        parse: parseTextParserBody,
        transform: rejectUnknownFields(TextParserRequestSchema),
        body: TextParserRequestSchema,
        detail: {
          operationId: 'createTextParser',
          summary: 'Extract the text of a document',
          tags,
          security,
          description:
            'Extracts the text of a PDF, DOCX, PPTX, XLSX or plain text file (multipart `file`, at most 25 MB, recognised by its content). ' +
            '`response_format: json` (default) gives `{text, tokens}` (o200k_base tokens), `text` the text alone. Parsed in memory within time and ' +
            'decompression limits; nothing is stored. Charged per document (`augment.textParser.priceMicros`), only when it was read.' +
            AUTH,
          responses: {
            200: {
              description: 'The text of the document',
              content: {
                'application/json': { schema: TextParserResponseSchema },
                'text/plain': { schema: { type: 'string' } },
              },
            },
            ...errorResponses(400, 401, 402, 413, 415, 429, 503),
          } as never,
        },
      },
    );
}
