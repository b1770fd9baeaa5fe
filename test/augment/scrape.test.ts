import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startWebPages, type WebPages } from '../fixtures/web-pages';
import { BACKENDS } from '../helpers/backends';
import { startAugmentApp, type AugmentApp } from './helpers';

const PRICE = 5_000;

for (const backend of BACKENDS) {
  describe(`POST /augment/scrape of fixture pages on 127.0.0.1 (private URLs allowed), ${backend.name}`, () => {
    let site: WebPages;
    let a: AugmentApp;
    beforeAll(async () => {
      site = startWebPages();
      a = await startAugmentApp({
        backend,
        config: { allowPrivateUrls: true, search: { scraping: { timeoutMs: 300, maxBytes: 100_000 } } },
      });
    });
    afterAll(async () => {
      await a.t.close();
      await site.close();
    });

    test('an article becomes markdown of its main content, charged once as one ledger line', async () => {
      const before = await a.usd();
      const res = await a.post('/augment/scrape', { url: `${site.origin}/guide` });
      expect(res.status).toBe(200);
      const body = await res.json();
      expect(body).toEqual({ url: `${site.origin}/guide`, content: expect.any(String), format: 'markdown' });
      expect(body.content).toStartWith('# Kelp care guide');
      expect(body.content).toContain('## What to record');
      expect(body.content).toMatch(/^-\s+Stipe density per square metre$/m);
      expect(body.content).toContain('[full survey protocol](https://example.org/survey-protocol)');
      expect(body.content).toContain('```\ndate,site,stipes\n2026-07-01,north,42\n```');
      expect(body.content).not.toContain('SHOULD_NOT_APPEAR');
      const lines = await a.ledgerOf(res);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ kind: 'CHARGE', sku: 'augment-web-scrape', modelId: null, amountMicros: -PRICE });
      expect(await a.usd()).toBe(before - PRICE);
    });

    test('scripts, styles and navigation are dropped; text in other charsets is decoded; plain text is returned as it is', async () => {
      const article = await (await a.post('/augment/scrape', { url: `${site.origin}/article` })).json();
      expect(article.content).toContain('Sea otters use rocks as tools');
      expect(article.content).toContain('Grüße an alle Otter 🦦');
      expect(article.content).not.toContain('SHOULD_NOT_APPEAR');
      expect(article.content).not.toContain('Menu links');
      expect((await (await a.post('/augment/scrape', { url: `${site.origin}/latin1` })).json()).content).toContain('Café crème à Zürich');
      expect((await (await a.post('/augment/scrape', { url: `${site.origin}/plain` })).json()).content).toBe(
        'Plain text notes: the answer is 42.',
      );
    });

    test.each([
      ['not a url', 'must be an absolute http or https URL'],
      ['ftp://example.org/file', 'must be an http or https URL'],
      ['file:///etc/passwd', 'must be an http or https URL'],
      ['https://x.com/someone/status/1', 'x.com blocks automated access'],
      ['https://old.reddit.com/r/otters', 'old.reddit.com blocks automated access'],
      ['https://twitter.com/', 'twitter.com blocks automated access'],
    ])('%s is a 400 naming url at once (%s), nothing fetched or charged', async (url, reason) => {
      const before = await a.usd();
      const res = await a.post('/augment/scrape', { url });
      expect(res.status).toBe(400);
      const err = await res.json();
      expect(err.error).toContain('url');
      expect(err.details.url._errors[0]).toContain(reason);
      expect(await a.ledgerOf(res)).toHaveLength(0);
      expect(await a.usd()).toBe(before);
    });

    test.each([[{}], [{ url: '' }], [{ url: 42 }], [{ url: `https://a.example/${'p'.repeat(2048)}` }]])(
      'body %j is a 400 naming url',
      async (body) => {
        const res = await a.post('/augment/scrape', body);
        expect(res.status).toBe(400);
        expect((await res.json()).error).toContain('url');
      },
    );

    test.each([
      ['/missing', 502, 'answered 404'],
      ['/broken', 502, 'answered 500'],
      ['/big', 502, 'could not be read'],
      ['/slow', 504, 'did not load in time'],
      ['/image', 400, 'image/png'],
      ['/empty', 502, 'no readable content'],
    ])('a page at %s is a %d (%s), nothing charged', async (path, status, reason) => {
      const before = await a.usd();
      const res = await a.post('/augment/scrape', { url: `${site.origin}${path}` });
      expect(res.status).toBe(status);
      expect((await res.json()).error).toContain(reason);
      expect(await a.ledgerOf(res)).toHaveLength(0);
      expect(await a.usd()).toBe(before);
    });

    test('no key is a 401; a balance of zero is a 402, before the page is fetched', async () => {
      const hits = site.hits.get('/second') ?? 0;
      expect((await a.post('/augment/scrape', { url: `${site.origin}/second` }, null)).status).toBe(401);
      expect((await a.post('/augment/scrape', { url: `${site.origin}/second` }, a.brokeKey)).status).toBe(402);
      expect(site.hits.get('/second') ?? 0).toBe(hits);
    });
  });
}

describe('POST /augment/scrape with the default SSRF guard and blocked hosts', () => {
  let site: WebPages;
  let a: AugmentApp;
  beforeAll(async () => {
    site = startWebPages();
    a = await startAugmentApp({ config: { augment: { blockedHosts: ['blocked.example'] } } });
  });
  afterAll(async () => {
    await a.t.close();
    await site.close();
  });

  test.each(['/article', '/redirect?to=/article'])(
    'a private address (%s on 127.0.0.1) is a 400 naming url, nothing charged',
    async (path) => {
      const res = await a.post('/augment/scrape', { url: `${site.origin}${path}` });
      expect(res.status).toBe(400);
      expect((await res.json()).details.url).toBeDefined();
      expect(await a.ledgerOf(res)).toHaveLength(0);
      expect(site.hits.get('/article') ?? 0).toBe(0);
    },
  );

  test('the configured list replaces the default one', async () => {
    const res = await a.post('/augment/scrape', { url: 'https://www.blocked.example/page' });
    expect(res.status).toBe(400);
    expect((await res.json()).details.url._errors[0]).toContain('www.blocked.example blocks automated access');
  });
});
