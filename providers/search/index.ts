import type { AppDeps } from '../../src/deps';
import { braveProvider } from './brave';
import { parseSearchConfig, type SearchConfig } from './config';
import { searxngProvider } from './searxng';
import type { SearchProvider } from './types';

export { parseSearchConfig, type SearchConfig } from './config';
export { SearchFailed, type SearchProvider, type SearchResult } from './types';

/** The configured web tools of an app: settings and the search engine (null when none). */
export interface WebTools {
  config: SearchConfig;
  search: SearchProvider | null;
}

/** Builds the search engine adapter a config names; null when no provider is configured. */
export function createSearchProvider(config: SearchConfig, doFetch: typeof fetch): SearchProvider | null {
  if (config.provider === 'searxng')
    return searxngProvider({ baseUrl: config.baseUrl as string, apiKey: config.apiKey, timeoutMs: config.timeoutMs, fetch: doFetch });
  if (config.provider === 'brave')
    return braveProvider({ baseUrl: config.baseUrl, apiKey: config.apiKey as string, timeoutMs: config.timeoutMs, fetch: doFetch });
  return null;
}

const byDeps = new WeakMap<AppDeps, WebTools>();

/**
 * The web tools of an app, built once per deps from `config.search` with the injected
 * `fetch` (tests point it at fixture engines). createApp calls this so a bad `search`
 * section stops the start.
 */
export function webToolsOf(deps: AppDeps): WebTools {
  let tools = byDeps.get(deps);
  if (!tools) {
    const config = parseSearchConfig(deps.config.search);
    tools = { config, search: createSearchProvider(config, deps.fetch) };
    byDeps.set(deps, tools);
  }
  return tools;
}
