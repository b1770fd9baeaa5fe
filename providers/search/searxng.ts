import { callEngine, engineJson, SearchFailed, text, type SearchProvider, type SearchResult } from './types';

/**
 * SearXNG JSON API: GET {baseUrl}/search?q=...&format=json (the instance must enable the
 * json format). Results carry `title`, `url`, `content` and sometimes `publishedDate`.
 */
export function searxngProvider(o: { baseUrl: string; apiKey?: string; timeoutMs: number; fetch: typeof fetch }): SearchProvider {
  const base = o.baseUrl.replace(/\/+$/, '');
  return {
    id: 'searxng',
    search(query, { signal, count, traceparent }) {
      return callEngine('searxng', o.timeoutMs, signal, async (s) => {
        const url = `${base}/search?${new URLSearchParams({ q: query, format: 'json', safesearch: '1' })}`;
        const headers: Record<string, string> = { accept: 'application/json' };
        if (o.apiKey) headers.authorization = `Bearer ${o.apiKey}`;
        if (traceparent) headers.traceparent = traceparent;
        const res = await o.fetch(url, { signal: s, headers });
        if (!res.ok) throw new SearchFailed(`searxng: HTTP ${res.status}`);
        const body = (await engineJson('searxng', res)) as { results?: unknown } | null;
        if (!body || !Array.isArray(body.results)) throw new SearchFailed('searxng: answer without a results array');
        const out: SearchResult[] = [];
        for (const r of body.results as Record<string, unknown>[]) {
          const hit: SearchResult = { title: text(r.title), url: text(r.url), content: text(r.content) };
          const date = text(r.publishedDate);
          if (date) hit.date = date;
          if (hit.url) out.push(hit);
          if (out.length >= count) break;
        }
        return out;
      });
    },
  };
}
