import { lazyModule } from '../lifecycle/lazy-module';

/** Readability and the linkedom DOM it reads, loaded by the first scrape: ~22 MB of RSS otherwise held idle. */
const loadReaderView = lazyModule(async () => {
  const [{ Readability }, { parseHTML }] = await Promise.all([import('@mozilla/readability'), import('linkedom')]);
  return { Readability, parseHTML };
});

/** Readable text of a page. */
export interface Readable {
  title: string;
  text: string;
}

/** Collapses runs of spaces and blank lines, as models read plain text best. */
export function tidy(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/[ \t\f\v\u00a0]+/g, ' ')
    .replace(/ *\n */g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Cuts `text` to at most `max` UTF-16 units without splitting a surrogate pair. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max;
  const c = text.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--;
  return `${text.slice(0, end)}…`;
}

/**
 * Turns HTML into readable text: Readability (Firefox reader view) over a linkedom
 * document; pages Readability cannot handle fall back to the body text without scripts,
 * styles and navigation.
 */
export async function htmlToText(html: string): Promise<Readable> {
  const { Readability, parseHTML } = await loadReaderView();
  const { document } = parseHTML(html);
  const title = tidy(document.querySelector('title')?.textContent ?? '');
  try {
    // Readability changes the document it reads, so it gets its own parse.
    const article = new Readability(parseHTML(html).document as unknown as Document, { charThreshold: 100 }).parse();
    const text = tidy(article?.textContent ?? '');
    if (text) return { title: tidy(article?.title ?? '') || title, text };
  } catch {
    // Fall through to the plain body text.
  }
  for (const el of document.querySelectorAll('script, style, noscript, template, nav, header, footer, svg')) el.remove();
  return { title, text: tidy(document.body?.textContent ?? document.documentElement?.textContent ?? '') };
}
