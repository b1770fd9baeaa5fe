import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { extractUrls, htmlToText, scrapeUrls } from '../../src/scrape';
import { ARTICLE_HTML, startWebPages, type WebPages } from '../fixtures/web-pages';

let site: WebPages;
beforeAll(() => {
  site = startWebPages();
});
afterAll(() => site.close());

const guard = { allowPrivate: true, timeoutMs: 1000, maxBytes: 100_000 };

describe('extractUrls', () => {
  test('finds http(s) URLs in order, trims punctuation, dedupes, caps at 5', () => {
    const text =
      'See https://a.example/x, and (http://b.example/y). Also https://a.example/x again; ftp://c.example no. ' +
      'https://en.wikipedia.org/wiki/Otter_(disambiguation) https://d.example https://e.example/q?x=1&y=2 https://f.example https://g.example';
    expect(extractUrls(text)).toEqual([
      'https://a.example/x',
      'http://b.example/y',
      'https://en.wikipedia.org/wiki/Otter_(disambiguation)',
      'https://d.example/',
      'https://e.example/q?x=1&y=2',
    ]);
  });

  test('bracketed IPv6 hosts are kept whole', () => {
    expect(extractUrls('see http://[::1]:8080/a and http://[::ffff:127.0.0.1]/b, ok')).toEqual([
      'http://[::1]:8080/a',
      'http://[::ffff:7f00:1]/b',
    ]);
  });

  test('no URLs -> empty', () => {
    expect(extractUrls('just words, example.com without a scheme')).toEqual([]);
  });
});

describe('htmlToText', () => {
  test('keeps the article, drops scripts, styles and navigation', async () => {
    const page = await htmlToText(ARTICLE_HTML);
    expect(page.title).toBe('Otters of the Pacific');
    expect(page.text).toContain('Sea otters use rocks as tools');
    expect(page.text).toContain('Grüße an alle Otter 🦦');
    expect(page.text).not.toContain('SHOULD_NOT_APPEAR');
    expect(page.text).not.toContain('color:red');
    expect(page.text).not.toContain('Menu links');
  });

  test('a tiny page falls back to its body text', async () => {
    expect((await htmlToText('<html><body><script>x()</script><p>Short.</p></body></html>')).text).toBe('Short.');
  });
});

describe('scrapeUrls (fixture pages on 127.0.0.1, private URLs allowed)', () => {
  test('html and plain text succeed; binary, 404 and refused URLs fail with a reason', async () => {
    const results = await scrapeUrls(
      [`${site.origin}/article`, `${site.origin}/plain`, `${site.origin}/image`, `${site.origin}/missing`, 'file:///etc/passwd'],
      { guard, maxChars: 10_000 },
    );
    expect(results.map((r) => r.ok)).toEqual([true, true, false, false, false]);
    expect(results[0]).toMatchObject({ ok: true, title: 'Otters of the Pacific' });
    expect(results[1]).toMatchObject({ ok: true, text: 'Plain text notes: the answer is 42.' });
    expect(results[2]).toMatchObject({ error: 'Unsupported content type image/png' });
    expect(results[3]).toMatchObject({ error: 'The server answered 404' });
    expect(results[4]).toMatchObject({ error: expect.stringContaining('Only http and https') });
  });

  test('the charset of Content-Type is honoured (ISO-8859-1)', async () => {
    const [page] = await scrapeUrls([`${site.origin}/latin1`], { guard, maxChars: 1000 });
    expect(page).toMatchObject({ ok: true, text: 'Café crème à Zürich' });
  });

  test('text is truncated to the bound without splitting a surrogate pair', async () => {
    const [page] = await scrapeUrls([`${site.origin}/article`], { guard, maxChars: 50 });
    expect(page!.ok).toBe(true);
    const text = (page as { text: string }).text;
    expect(text.length).toBeLessThanOrEqual(51);
    expect(text.endsWith('…')).toBe(true);
  });

  test('URLs are fetched concurrently: five slow pages take about one time limit, not five', async () => {
    const started = performance.now();
    const results = await scrapeUrls(
      [1, 2, 3, 4, 5].map((i) => `${site.origin}/slow?i=${i}`),
      { guard: { ...guard, timeoutMs: 300 }, maxChars: 1000 },
    );
    expect(results.every((r) => !r.ok && r.error.includes('300 ms'))).toBe(true);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  test('with the guard on, a loopback page is refused', async () => {
    const [r] = await scrapeUrls([`${site.origin}/article`], { guard: { ...guard, allowPrivate: false }, maxChars: 1000 });
    expect(r).toMatchObject({ ok: false, error: expect.stringContaining('loopback') });
  });
});
