import { braveProvider } from './brave';
import { parseSearchConfig, type SearchConfig } from './config';
import { searxngProvider } from './searxng';
import { simulatedSearchProvider } from './simulated';
import type { SearchProvider } from './types';

export { parseSearchConfig, type SearchConfig } from './config';
export { SearchFailed, type SearchProvider, type SearchResult } from './types';
export { SIMULATED_SEARCH_ID, simulatedResults } from './simulated';

/** The configured web tools of an app: settings and the search engine (null when none). */
export interface WebTools {
  config: SearchConfig;
  search: SearchProvider | null;
}

/**
 * Builds the search engine adapter a config names; null when there is none. An unset
 * provider means the simulated engine when `allSimulated` (the default, simulator-only
 * configuration), else none.
 */
export function createSearchProvider(
  config: SearchConfig,
  doFetch: typeof fetch,
  opts: { allSimulated?: boolean; now?: () => number } = {},
): SearchProvider | null {
  const now = opts.now ?? Date.now;
  if (config.provider === 'simulated' || (config.provider === undefined && opts.allSimulated)) return simulatedSearchProvider(now);
  if (config.provider === 'searxng')
    return searxngProvider({ baseUrl: config.baseUrl as string, apiKey: config.apiKey, timeoutMs: config.timeoutMs, fetch: doFetch });
  if (config.provider === 'brave')
    return braveProvider({ baseUrl: config.baseUrl, apiKey: config.apiKey as string, timeoutMs: config.timeoutMs, fetch: doFetch });
  return null;
}

/** What building the web tools needs from the app: its `search` section, `fetch`, clock and text models. */
export interface WebToolsDeps {
  config: { search?: Record<string, unknown> };
  fetch: typeof fetch;
  now: () => number;
  /** Absent in hand-built deps of plugin unit tests. */
  models?: { list(type: 'text'): { simulated: boolean }[] };
}

const byDeps = new WeakMap<WebToolsDeps, WebTools>();

/**
 * The web tools of an app, built once per deps from `config.search` with the injected
 * `fetch` (tests point it at fixture engines). createApp calls this so a bad `search`
 * section stops the start.
 */
export function webToolsOf(deps: WebToolsDeps): WebTools {
  let tools = byDeps.get(deps);
  if (!tools) {
    const config = parseSearchConfig(deps.config.search);
    // Hand-built deps in plugin unit tests may have no catalog.
    const allSimulated = deps.models?.list('text').every((m) => m.simulated) ?? false;
    tools = { config, search: createSearchProvider(config, deps.fetch, { allSimulated, now: deps.now }) };
    byDeps.set(deps, tools);
  }
  return tools;
}
