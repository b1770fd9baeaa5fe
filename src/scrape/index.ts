import { guardedFetch, UrlRefused, type GuardOptions } from '../net/guarded-fetch';
import { htmlToText, tidy, truncate } from './readable';

export { extractUrls, MAX_SCRAPED_URLS } from './urls';
export { htmlToText, truncate } from './readable';
export { htmlToMarkdown } from './markdown';

/** A successfully scraped page. */
export interface ScrapedPage {
  ok: true;
  url: string;
  title: string;
  text: string;
}

/** A URL that could not be scraped, with a reason safe to show. */
export interface ScrapeFailure {
  ok: false;
  url: string;
  error: string;
}

const HTML = /^(text\/html|application\/xhtml\+xml)/i;
const TEXT = /^(text\/(plain|markdown|csv)|application\/json)/i;

function decode(body: Uint8Array, contentType: string): string {
  const charset = /charset=([^;]+)/i.exec(contentType)?.[1]?.trim().replace(/"/g, '');
  try {
    return new TextDecoder(charset || 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

/** A page fetched and decoded: HTML or text, or the content type svc does not read. */
export type FetchedPage = { kind: 'html' | 'text'; url: string; body: string } | { kind: 'unsupported'; url: string; contentType: string };

/**
 * Fetches one URL through the SSRF guard (size, time and address limits) and decodes it by
 * its charset; throws UrlRefused when the guard or the page refuses.
 */
export async function fetchPage(url: string, guard: GuardOptions): Promise<FetchedPage> {
  const doc = await guardedFetch(url, guard);
  const type = doc.contentType || 'text/html';
  if (HTML.test(type)) return { kind: 'html', url: doc.url, body: decode(doc.body, type) };
  if (TEXT.test(type)) return { kind: 'text', url: doc.url, body: decode(doc.body, type) };
  return { kind: 'unsupported', url: doc.url, contentType: type.split(';')[0] ?? type };
}

/** Fetches one URL through the SSRF guard and extracts its readable text. */
export async function scrapeUrl(url: string, o: { guard: GuardOptions; maxChars: number }): Promise<ScrapedPage | ScrapeFailure> {
  try {
    const fetched = await fetchPage(url, o.guard);
    if (fetched.kind === 'unsupported') return { ok: false, url, error: `Unsupported content type ${fetched.contentType}` };
    const page = fetched.kind === 'html' ? await htmlToText(fetched.body) : { title: '', text: tidy(fetched.body) };
    if (!page.text) return { ok: false, url, error: 'No readable text' };
    return { ok: true, url, title: page.title, text: truncate(page.text, o.maxChars) };
  } catch (error) {
    return { ok: false, url, error: error instanceof UrlRefused ? error.message : 'The page could not be read' };
  }
}

/** Scrapes the URLs concurrently; results keep the order of `urls`. */
export function scrapeUrls(urls: string[], o: { guard: GuardOptions; maxChars: number }): Promise<(ScrapedPage | ScrapeFailure)[]> {
  return Promise.all(urls.map((url) => scrapeUrl(url, o)));
}
