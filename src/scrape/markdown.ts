import { lazyModule } from '../lifecycle/lazy-module';
import { tidy } from './readable';

/** Readability, linkedom and turndown, loaded by the first scrape to markdown (as readable.ts does). */
const loadConverter = lazyModule(async () => {
  const [{ Readability }, { parseHTML }, { default: TurndownService }] = await Promise.all([
    import('@mozilla/readability'),
    import('linkedom'),
    import('turndown'),
  ]);
  const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });
  // Scripts, styles and embedded frames carry no content for a reader.
  turndown.remove(['script', 'style', 'noscript', 'template', 'iframe', 'canvas']);
  turndown.remove((node) => node.nodeName.toLowerCase() === 'svg');
  return { Readability, parseHTML, turndown };
});

/** A page's main content as markdown, and its title. */
export interface MarkdownPage {
  title: string;
  markdown: string;
}

/**
 * The main content of an HTML page as markdown: Readability (Firefox reader view) picks the
 * article over a linkedom document, turndown writes it as markdown, headed by the page title
 * when the article does not start with it. A page Readability cannot read is converted whole,
 * without navigation, header and footer.
 */
export async function htmlToMarkdown(html: string): Promise<MarkdownPage> {
  const { Readability, parseHTML, turndown } = await loadConverter();
  const { document } = parseHTML(html);
  const pageTitle = tidy(document.querySelector('title')?.textContent ?? '');
  let title = pageTitle;
  let content = '';
  try {
    // Readability changes the document it reads, so it gets its own parse.
    const article = new Readability(parseHTML(html).document as unknown as Document, { charThreshold: 100 }).parse();
    if (article?.content && tidy(article.textContent ?? '')) {
      content = article.content;
      title = tidy(article.title ?? '') || pageTitle;
    }
  } catch {
    // Fall through to the whole body.
  }
  if (!content) {
    for (const el of document.querySelectorAll('nav, header, footer')) el.remove();
    content = document.body?.innerHTML ?? '';
  }
  const markdown = turndown.turndown(content).trim();
  if (!markdown) return { title, markdown: '' };
  const headed = title && !markdown.split('\n', 1)[0]?.includes(title) ? `# ${title}\n\n${markdown}` : markdown;
  return { title, markdown: headed };
}
