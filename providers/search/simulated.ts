import type { SearchProvider, SearchResult } from './types';

/** The engine id, also the label every simulated result carries. */
export const SIMULATED_SEARCH_ID = 'simulated';

/** Where simulated results point: a reserved example domain (RFC 2606), never a real page. */
const BASE_URL = 'https://example.com/svc-simulated-search';

/**
 * The results of the simulated search engine for `query`: `count` entries (at most 5), each
 * labelled "[Simulated]" in its title and saying in its text that no real engine answered,
 * with URLs on example.com. The same query always gets the same results.
 */
export function simulatedResults(query: string, count: number, today: string): SearchResult[] {
  const q = query.replace(/\s+/g, ' ').trim().slice(0, 80);
  return Array.from({ length: Math.max(0, Math.min(5, count)) }, (_, i) => ({
    title: `[Simulated] Result ${i + 1} for "${q}"`,
    url: `${BASE_URL}/${i + 1}?q=${encodeURIComponent(q)}`,
    content:
      `Simulated search result ${i + 1}: svc is running its built-in simulated search engine, so this text was not found on the web. ` +
      'Configure search.provider (searxng or brave) for real results.',
    date: today,
  }));
}

/**
 * The simulated web search engine (search.provider `simulated`, and the default when every
 * text model is served by the simulator), so every web-search option can be seen working
 * on a fresh start. It makes no network call.
 */
export function simulatedSearchProvider(now: () => number): SearchProvider {
  return {
    id: SIMULATED_SEARCH_ID,
    async search(query, { count }) {
      return simulatedResults(query, count, new Date(now()).toISOString().slice(0, 10));
    },
  };
}
