import type { PluginModel } from '@svc/plugin-sdk';

// Words that ask for current or external facts. Kept short and explicit on purpose: this
// is a cheap guess, not a classifier (see autoWantsSearch).
const WANTS_FRESH_FACTS =
  /\b(latest|recent(ly)?|news|headlines?|today|tonight|yesterday|tomorrow|this (week|month|year)|current(ly)?|right now|up[- ]to[- ]date|prices?|cost of|exchange rate|weather|forecast|scores?|standings|stock|released?|announced?|election|who won|search( the web)?|look up|google|sources?|according to)\b|\b20\d\d\b/i;

/**
 * `enable_web_search: auto` WITHOUT asking the model: svc does not run a tool-calling round
 * trip (that would double latency and cost). Models without function calling could not
 * decide anyway, so they always get a search; models with function calling get one when
 * the last user message matches the keyword heuristic above (recency, prices, news,
 * explicit "search"/"look up", or a year).
 */
export function autoWantsSearch(query: string, model: PluginModel): boolean {
  if (model.config.capabilities?.supportsFunctionCalling !== true) return true;
  return WANTS_FRESH_FACTS.test(query);
}
