import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { startBrave } from '../fixtures/search-brave';
import { FIXTURE_HITS, type FixtureEngine } from '../fixtures/search-engines';
import { startSearxng } from '../fixtures/search-searxng';
import { BACKENDS } from '../helpers/backends';
import { startAugmentApp, type AugmentApp } from './helpers';

const PRICE = 10_000;

for (const backend of BACKENDS) {
  describe(`POST /augment/search on a fixture SearXNG, ${backend.name}`, () => {
    let engine: FixtureEngine;
    let a: AugmentApp;
    beforeAll(async () => {
      engine = startSearxng();
      a = await startAugmentApp({ backend, config: { search: { provider: 'searxng', baseUrl: engine.url, timeoutMs: 300 } } });
    });
    afterAll(async () => {
      await a.t.close();
      await engine.close();
    });
    beforeEach(() => engine.set({}));

    test("returns the engine's results in the reference's shape, charged once as one ledger line", async () => {
      const before = await a.usd();
      const res = await a.post('/augment/search', { query: '  sea otters ', limit: 2 });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        query: 'sea otters',
        results: FIXTURE_HITS.slice(0, 2).map((h) => ({ title: h.title, url: h.url, content: h.content, date: h.date ?? '' })),
      });
      expect(engine.queries.at(-1)).toBe('sea otters');
      expect(res.headers.get('x-svc-balance-usd')).toBe('10.000000');
      expect(res.headers.get('x-svc-simulated')).toBeNull();
      const lines = await a.ledgerOf(res);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ kind: 'CHARGE', sku: 'augment-web-search', modelId: null, amountMicros: -PRICE, units: '1' });
      expect(await a.usd()).toBe(before - PRICE);
    });

    test('limit defaults to 10 and caps the results; search_provider naming the configured engine is accepted', async () => {
      engine.set({ hits: 6 });
      const res = await a.post('/augment/search', { query: 'otters', search_provider: 'searxng' });
      expect(res.status).toBe(200);
      expect((await res.json()).results).toHaveLength(6);
    });

    test.each([
      [{ query: '' }, 'query'],
      [{ query: '   ' }, 'query'],
      [{ query: 'a\u0000b' }, 'query'],
      [{ query: 'x'.repeat(401) }, 'query'],
      [{}, 'query'],
      [{ query: 7 }, 'query'],
      [{ query: 'otters', limit: 0 }, 'limit'],
      [{ query: 'otters', limit: 21 }, 'limit'],
      [{ query: 'otters', limit: 2.5 }, 'limit'],
      [{ query: 'otters', search_provider: 'brave' }, 'search_provider'],
      [{ query: 'otters', search_provider: 'google' }, 'search_provider'],
      [{ query: 'otters', search_provider: 'bing' }, 'search_provider'],
    ])('bad input %j is a 400 naming %s, nothing charged', async (body, field) => {
      const before = await a.usd();
      const res = await a.post('/augment/search', body);
      expect(res.status).toBe(400);
      const err = await res.json();
      expect(err.error).toContain(field);
      expect(err.details[field]).toBeDefined();
      expect(await a.ledgerOf(res)).toHaveLength(0);
      expect(await a.usd()).toBe(before);
    });

    test('a body that is not a JSON object is a 400', async () => {
      for (const body of ['[1]', '"otters"', 'null', '{"query":']) {
        const res = await a.t.request('/augment/search', { method: 'POST', body, headers: { 'content-type': 'application/json' } });
        expect(res.status).toBe(400);
        expect((await res.json()).error).toBeString();
      }
    });

    test('no key or a wrong key is a 401; a balance of zero is a 402; neither reaches the engine', async () => {
      const asked = engine.queries.length;
      expect((await a.post('/augment/search', { query: 'otters' }, null)).status).toBe(401);
      expect((await a.post('/augment/search', { query: 'otters' }, 'svc_wrongwrongwrong')).status).toBe(401);
      const broke = await a.post('/augment/search', { query: 'otters' }, a.brokeKey);
      expect(broke.status).toBe(402);
      expect((await broke.json()).error).toBeString();
      expect(engine.queries.length).toBe(asked);
    });

    test.each([
      [{ status: 500 }, 502],
      [{ status: 429 }, 502],
      [{ garbage: true }, 502],
      [{ delayMs: 600 }, 504],
    ])('an engine failure %j is a %d with a clear error, nothing charged', async (behaviour, status) => {
      engine.set(behaviour);
      const before = await a.usd();
      const res = await a.post('/augment/search', { query: 'otters' });
      expect(res.status).toBe(status);
      expect((await res.json()).error).toContain('Search engine failed: searxng');
      expect(await a.ledgerOf(res)).toHaveLength(0);
      expect(await a.usd()).toBe(before);
    });
  });
}

describe('POST /augment/search: the engine choice', () => {
  test('Brave configured: search_provider brave is served by it, searxng is a 400', async () => {
    const brave = startBrave();
    const a = await startAugmentApp({ config: { search: { provider: 'brave', baseUrl: brave.url, apiKey: 'fixture-key' } } });
    try {
      const res = await a.post('/augment/search', { query: 'otters', limit: 1, search_provider: 'brave' });
      expect(res.status).toBe(200);
      expect((await res.json()).results).toEqual([
        { title: FIXTURE_HITS[0]!.title, url: FIXTURE_HITS[0]!.url, content: FIXTURE_HITS[0]!.content, date: FIXTURE_HITS[0]!.date! },
      ]);
      const refused = await a.post('/augment/search', { query: 'otters', search_provider: 'searxng' });
      expect(refused.status).toBe(400);
      expect((await refused.json()).details.search_provider._errors[0]).toContain('not configured');
    } finally {
      await a.t.close();
      await brave.close();
    }
  });

  test('the simulated engine answers for any engine name, labelled as simulated, and is charged', async () => {
    const a = await startAugmentApp({ config: { search: { provider: 'simulated' } } });
    try {
      const res = await a.post('/augment/search', { query: 'otters', limit: 3, search_provider: 'brave' });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-svc-simulated')).toBe('true');
      const body = await res.json();
      expect(body.results).toHaveLength(3);
      for (const r of body.results) expect(r.title).toStartWith('[Simulated]');
      expect(await a.ledgerOf(res)).toHaveLength(1);
    } finally {
      await a.t.close();
    }
  });

  test('no engine configured and the simulator off: a 503 that says so, nothing charged', async () => {
    const a = await startAugmentApp({ config: { search: { provider: 'none' } } });
    try {
      const res = await a.post('/augment/search', { query: 'otters' });
      expect(res.status).toBe(503);
      expect((await res.json()).error).toContain('Web search is not configured');
      expect(await a.ledgerOf(res)).toHaveLength(0);
    } finally {
      await a.t.close();
    }
  });

  test('the account-wide limit (rateLimits.apiRpm) answers 429 with Retry-After, nothing charged past it', async () => {
    const a = await startAugmentApp({ config: { search: { provider: 'simulated' }, rateLimits: { apiRpm: 2 } } });
    try {
      expect((await a.post('/augment/search', { query: 'a' })).status).toBe(200);
      expect((await a.post('/augment/search', { query: 'b' })).status).toBe(200);
      const before = await a.usd();
      const res = await a.post('/augment/search', { query: 'c' });
      expect(res.status).toBe(429);
      expect(res.headers.get('retry-after')).toBeString();
      expect(await a.ledgerOf(res)).toHaveLength(0);
      expect(await a.usd()).toBe(before);
    } finally {
      await a.t.close();
    }
  });
});
