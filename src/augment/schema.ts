import { Type as T, type Static } from '@sinclair/typebox';
import { t } from 'elysia';

/** Search results per call at most (the reference's limit). */
export const MAX_SEARCH_RESULTS = 20;

// Plain TypeBox integers: Elysia's t.Integer is a Transform that makes every body Decode. No
// `default` either: applying one walks the whole body, and a body nested 5,000 deep overflowed
// the stack there (a 500); the handler applies the default.
/** The WebSearchRequest body (POST /augment/search). */
export const WebSearchRequestSchema = T.Object({
  query: T.String({ minLength: 1, maxLength: 400, description: 'The search query' }),
  limit: T.Optional(T.Integer({ minimum: 1, maximum: MAX_SEARCH_RESULTS, description: 'Results at most (default 10, max 20)' })),
  search_provider: T.Optional(
    T.Union([T.Literal('brave'), T.Literal('google'), T.Literal('searxng'), T.Literal('simulated')], {
      description:
        'The engine to ask, among those the operator configured (an unconfigured one is a 400); default: the configured engine. ' +
        'The built-in simulated engine answers for any name.',
    }),
  ),
});

/** A validated web search request. */
export type WebSearchRequest = Static<typeof WebSearchRequestSchema>;

/** The WebSearchResponse body. */
export const WebSearchResponseSchema = T.Object({
  query: T.String({ description: 'The search query that was executed' }),
  results: T.Array(
    T.Object({
      title: T.String(),
      url: T.String(),
      content: T.String({ description: 'A snippet of the result' }),
      date: T.String({ description: 'The date of the result; empty when the engine does not know it' }),
    }),
  ),
});

/** A web search response as svc sends it. */
export type WebSearchResponse = Static<typeof WebSearchResponseSchema>;

/** The WebScrapeRequest body (POST /augment/scrape). */
export const WebScrapeRequestSchema = T.Object({
  url: T.String({ minLength: 1, maxLength: 2048, description: 'The http(s) URL to scrape' }),
});

/** A validated scrape request. */
export type WebScrapeRequest = Static<typeof WebScrapeRequestSchema>;

/** The WebScrapeResponse body. */
export const WebScrapeResponseSchema = T.Object({
  url: T.String({ description: 'The URL that was scraped' }),
  content: T.String({ description: 'The main content of the page as markdown' }),
  format: T.Literal('markdown'),
});

/** A scrape response as svc sends it. */
export type WebScrapeResponse = Static<typeof WebScrapeResponseSchema>;

/** The multipart body of POST /augment/text-parser. */
export const TextParserRequestSchema = t.Object({
  file: t.File({ description: 'PDF, DOCX, PPTX, XLSX or plain text; at most 25 MB' }),
  response_format: t.Optional(
    t.Union([t.Literal('json'), t.Literal('text')], { default: 'json', description: 'json: {text, tokens}; text: the text alone' }),
  ),
});

/** A validated text parser request. */
export type TextParserRequest = Static<typeof TextParserRequestSchema>;

/** The text parser's JSON answer. */
export const TextParserResponseSchema = T.Object({
  text: T.String({ description: 'The text of the document' }),
  tokens: T.Integer({ description: "The text's token count (o200k_base)" }),
});
