import type { ExtraCharge } from '../billing/meter';
import { invalidField, upstreamError } from '../http/errors';
import type { MeteredCall } from '../pipeline/metered-call';
import { SearchFailed, SIMULATED_SEARCH_ID, type SearchProvider, type WebTools } from '../../providers/search';
import type { WebSearchRequest, WebSearchResponse } from './schema';

/** The line item of one web search call. */
export const AUGMENT_SEARCH_SKU = 'augment-web-search';

/**
 * The engine that answers `asked` (the configured one when unset): 503 when none is
 * configured, 400 naming `search_provider` when it names another. The simulated engine,
 * which stands in for every engine on a fresh start, answers for any name.
 */
function engineFor(tools: WebTools, asked: string | undefined): SearchProvider {
  const engine = tools.search;
  if (!engine)
    throw upstreamError(
      503,
      'Web search is not configured on this server: set search.provider (searxng or brave), or search.provider: simulated',
    );
  if (asked && asked !== engine.id && engine.id !== SIMULATED_SEARCH_ID)
    throw invalidField('search_provider', `"${asked}" is not configured on this server (configured: ${engine.id})`, 'body');
  return engine;
}

/**
 * POST /augment/search on a call priced by its line item: checks the query and the engine
 * (400 or 503 before anything is reserved), reserves one search, asks the engine, and
 * charges it only when the engine answered; an engine failure is a 502 (504 on its time
 * limit) with nothing charged.
 */
export async function webSearch(req: WebSearchRequest, call: MeteredCall, tools: WebTools): Promise<WebSearchResponse> {
  const query = req.query.trim();
  if (!query) throw invalidField('query', 'must not be empty', 'body');
  if (query.includes('\u0000')) throw invalidField('query', 'must not contain NUL characters', 'body');
  const engine = engineFor(tools, req.search_provider);
  const charge: ExtraCharge = { sku: AUGMENT_SEARCH_SKU, units: 1, unitPriceMicros: tools.config.priceMicros };
  await call.reserve({ promptTokens: 0, completionTokens: 0, extras: [charge] });
  let results: WebSearchResponse['results'];
  try {
    const hits = await engine.search(query, { signal: call.signal, count: req.limit ?? 10, traceparent: call.upstreamCalled() });
    call.upstreamAnswered();
    results = hits.map((h) => ({ title: h.title, url: h.url, content: h.content, date: h.date ?? '' }));
  } catch (error) {
    if (error instanceof SearchFailed)
      return call.fail(upstreamError(error.timedOut ? 504 : 502, `Search engine failed: ${error.message}`));
    return call.fail(error);
  }
  if (engine.id === SIMULATED_SEARCH_ID) call.headers['x-svc-simulated'] = 'true';
  const executionMs = Math.round(performance.now() - call.request.startedAt);
  const settled = await call.settle({ promptTokens: 0, completionTokens: 0, executionMs, extras: [charge] });
  call.chargeBeforeHeaders(settled);
  return { query, results };
}
