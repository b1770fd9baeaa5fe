import {
  Type,
  definePlugin,
  extractUrls,
  lastUserText,
  prependSystemText,
  type ChatCompletion,
  type ChatRequest,
  type PluginContext,
  type SearchResult,
} from '@svc/plugin-sdk';
import { invalidField } from '../../src/http/errors';
import { autoWantsSearch } from './auto';
import { citationsChunk, documentsChunk, documentsToolCall, searchContext, unavailableChunk } from './context';

/** Longest query sent to the engine; longer messages are cut (engines cap queries anyway). */
const MAX_QUERY_CHARS = 400;

/** The line item of one web search. */
export const WEB_SEARCH_SKU = 'web-search';

const bool = (description: string) => Type.Optional(Type.Boolean({ default: false, description }));

/** True when another option replaces web search for this request (spec 4.8b). */
function bypassed(req: ChatRequest, ctx: PluginContext): boolean {
  if (ctx.params.enable_x_search === true && ctx.model.config.capabilities?.supportsXSearch === true) return true;
  return ctx.params.enable_web_scraping === true && extractUrls(lastUserText(req)).length > 0;
}

const NO_ENGINE = 'this server has no web search engine configured (config search.provider), so the answer was made without web search';

/** The 400 of enable_web_search 'on' on a server without a search engine. */
const noSearchEngine = () =>
  invalidField(
    ['svc_parameters', 'enable_web_search'],
    "is 'on' but this server has no web search engine configured (config search.provider); send 'auto' to answer without search, or 'off'",
    'body',
  );

/** The results this request searched, kept where transformResponse finds them. */
const resultsOf = (ctx: PluginContext) => ctx.echo.web_search_citations as SearchResult[] | undefined;

/**
 * `enable_web_search` (off|on|auto) with its companions `enable_web_citations`,
 * `include_search_results_in_stream` and `return_search_results_as_documents`. Searches
 * the configured engine with the last user message, puts the results into the system
 * prompt, echoes them as `svc_parameters.web_search_citations`, and charges one search.
 * Bypassed by enable_x_search on a supporting model and by enable_web_scraping when the
 * message has URLs. An engine failure degrades to no search (logged, not charged).
 */
export const enableWebSearch = definePlugin({
  name: 'enable_web_search',
  parameters: {
    enable_web_search: Type.Optional(
      Type.Union([Type.Literal('off'), Type.Literal('on'), Type.Literal('auto')], {
        default: 'off',
        description:
          'off | on | auto. auto: always for models without function calling, else when the message asks for current facts. Extra charge per search.',
      }),
    ),
    enable_web_citations: bool('With web search, asks the model to cite sources as [REF]0[/REF].'),
    include_search_results_in_stream: bool(
      'Experimental: sends the search results as the first stream chunk (svc_parameters.web_search_citations).',
    ),
    return_search_results_as_documents: bool(
      'Exposes the search results as an OpenAI-compatible tool call named svc_web_search_documents.',
    ),
  },
  suffixKeys: ['enable_web_search', 'enable_web_citations', 'include_search_results_in_stream', 'return_search_results_as_documents'],
  isActive(ctx) {
    const mode = ctx.params.enable_web_search;
    if (mode !== 'on' && mode !== 'auto') return false;
    return !(ctx.params.enable_x_search === true && ctx.model.config.capabilities?.supportsXSearch === true);
  },
  async transformRequest(req, ctx) {
    if (bypassed(req, ctx)) return;
    const tools = ctx.services.web;
    if (!tools.search) {
      // 'on' is a promise svc cannot keep here: refuse it. 'auto' may go without, and says so.
      if (ctx.params.enable_web_search === 'on') throw noSearchEngine();
      ctx.echo.web_search_unavailable = NO_ENGINE;
      if (ctx.stream) ctx.leadingChunks.push(unavailableChunk(ctx, NO_ENGINE));
      return;
    }
    const query = lastUserText(req).trim().slice(0, MAX_QUERY_CHARS);
    if (!query) return;
    if (ctx.params.enable_web_search === 'auto' && !autoWantsSearch(query, ctx.model)) return;
    let results: SearchResult[];
    try {
      results = await tools.search.search(query, { signal: ctx.signal, count: tools.config.maxResults });
    } catch (error) {
      // The engine's own failure (a name, so it holds across module copies) degrades; anything else is a bug.
      if (!(error instanceof Error && error.name === 'SearchFailed')) throw error;
      ctx.services.log.warn('web search failed; answering without it', { requestId: ctx.request.requestId, error: error.message });
      return;
    }
    ctx.extraCharges.push({ sku: WEB_SEARCH_SKU, units: 1, unitPriceMicros: tools.config.priceMicros });
    ctx.echo.web_search_citations = results;
    if (results.length === 0) return;
    const today = new Date(ctx.services.now()).toISOString().slice(0, 10);
    prependSystemText(req, searchContext(results, ctx.params.enable_web_citations === true, today));
    if (!ctx.stream) return;
    if (ctx.params.include_search_results_in_stream === true) ctx.leadingChunks.push(citationsChunk(ctx, results));
    if (ctx.params.return_search_results_as_documents === true) ctx.leadingChunks.push(documentsChunk(ctx, results));
  },
  transformResponse(body: ChatCompletion, ctx) {
    const results = resultsOf(ctx);
    const first = body.choices[0];
    if (ctx.params.return_search_results_as_documents !== true || !results?.length || !first) return body;
    first.message.tool_calls = [documentsToolCall(results), ...(first.message.tool_calls ?? [])];
    return body;
  },
});
