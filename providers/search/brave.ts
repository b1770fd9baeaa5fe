import { callEngine, engineJson, SearchFailed, text, type SearchProvider, type SearchResult } from './types';

/** Brave descriptions mark query words with <strong>; citations carry plain text. */
const plain = (s: string) =>
  s
    .replace(/<\/?strong>/g, '')
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');

/**
 * Brave Search API: GET {baseUrl}/res/v1/web/search?q=...&count=N with the
 * X-Subscription-Token header. Hits are under `web.results[]` with `title`, `url`,
 * `description` and `page_age` (ISO date) or `age` (text).
 */
export function braveProvider(o: { baseUrl?: string; apiKey: string; timeoutMs: number; fetch: typeof fetch }): SearchProvider {
  const base = (o.baseUrl ?? 'https://api.search.brave.com').replace(/\/+$/, '');
  return {
    id: 'brave',
    search(query, { signal, count, traceparent }) {
      return callEngine('brave', o.timeoutMs, signal, async (s) => {
        const url = `${base}/res/v1/web/search?${new URLSearchParams({ q: query, count: String(count) })}`;
        const headers: Record<string, string> = { accept: 'application/json', 'x-subscription-token': o.apiKey };
        if (traceparent) headers.traceparent = traceparent;
        const res = await o.fetch(url, { signal: s, headers });
        if (!res.ok) throw new SearchFailed(`brave: HTTP ${res.status}`);
        const body = (await engineJson('brave', res)) as { web?: { results?: unknown } } | null;
        if (!body || typeof body !== 'object') throw new SearchFailed('brave: unreadable answer');
        const results = Array.isArray(body.web?.results) ? (body.web.results as Record<string, unknown>[]) : [];
        const out: SearchResult[] = [];
        for (const r of results) {
          const hit: SearchResult = { title: plain(text(r.title)), url: text(r.url), content: plain(text(r.description)) };
          const date = text(r.page_age) || text(r.age);
          if (date) hit.date = date;
          if (hit.url) out.push(hit);
          if (out.length >= count) break;
        }
        return out;
      });
    },
  };
}
