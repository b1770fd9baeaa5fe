/** URLs scraped per chat request at most (spec 8.3). */
export const MAX_SCRAPED_URLS = 5;

// A bracketed IPv6 host or a name, then a path that stops at whitespace, quotes and
// brackets; trailing sentence punctuation is trimmed below (']' can only close the host).
const URL_PATTERN = /\bhttps?:\/\/(?:\[[0-9a-f:.%]+\]|[^\s<>"'`{}|\\^[\]/?#]+)[^\s<>"'`{}|\\^[\]]*/gi;
const TRAILING = /[.,;:!?)}'"*_]+$/;

/** The distinct http(s) URLs in `text`, in order of appearance, at most `max`. */
export function extractUrls(text: string, max = MAX_SCRAPED_URLS): string[] {
  const out: string[] = [];
  for (const match of text.matchAll(URL_PATTERN)) {
    let url = match[0].replace(TRAILING, '');
    // Keep a closing parenthesis that belongs to the URL (Wikipedia style).
    if (match[0].length > url.length && match[0][url.length] === ')' && url.includes('(')) url += ')';
    try {
      url = new URL(url).href;
    } catch {
      continue;
    }
    if (!out.includes(url)) out.push(url);
    if (out.length >= max) break;
  }
  return out;
}
