/** URLs taken from one message at most, unless told. */
export const MAX_URLS = 5;

// A bracketed IPv6 host or a name, then a path that stops at whitespace, quotes and
// brackets; trailing sentence punctuation is trimmed below (']' can only close the host).
const URL_PATTERN = /\bhttps?:\/\/(?:\[[0-9a-f:.%]+\]|[^\s<>"'`{}|\\^[\]/?#]+)[^\s<>"'`{}|\\^[\]]*/gi;
const TRAILING = /[.,;:!?)}'"*_]+$/;

/** The distinct http(s) URLs in `text`, in order of appearance, at most `max`. */
export function extractUrls(text: string, max = MAX_URLS): string[] {
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

/**
 * Length of the tail of `s` (from `from` on) that is a proper prefix of `tag`, i.e. a tag
 * that the next piece of a stream may complete, so a stream transform must hold it back.
 * Tags hold '<' only at position 0, so the last '<' is the only candidate.
 */
export function partialTagLength(s: string, from: number, tag: string): number {
  const n = s.length;
  const lt = s.lastIndexOf('<');
  if (lt < from || lt < n - (tag.length - 1)) return 0;
  for (let i = lt + 1, j = 1; i < n; i++, j++) if (s.charCodeAt(i) !== tag.charCodeAt(j)) return 0;
  return n - lt;
}
