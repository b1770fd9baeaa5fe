import { guardedFetch, UrlRefused, type GuardOptions } from '../net/guarded-fetch';
import { htmlToText, tidy, truncate } from './readable';

export { extractUrls, MAX_SCRAPED_URLS } from './urls';
export { htmlToText } from './readable';

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

/** Fetches one URL through the SSRF guard and extracts its readable text. */
export async function scrapeUrl(url: string, o: { guard: GuardOptions; maxChars: number }): Promise<ScrapedPage | ScrapeFailure> {
  try {
    const doc = await guardedFetch(url, o.guard);
    const type = doc.contentType || 'text/html';
    let page: { title: string; text: string };
    if (HTML.test(type)) page = await htmlToText(decode(doc.body, type));
    else if (TEXT.test(type)) page = { title: '', text: tidy(decode(doc.body, type)) };
    else return { ok: false, url, error: `Unsupported content type ${type.split(';')[0]}` };
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
