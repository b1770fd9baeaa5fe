import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createSearchProvider, parseSearchConfig, SearchFailed, type SearchProvider } from '../../providers/search';
import { FIXTURE_HITS, type FixtureEngine } from '../fixtures/search-engines';
import { startBrave } from '../fixtures/search-brave';
import { startSearxng } from '../fixtures/search-searxng';

let searxng: FixtureEngine;
let brave: FixtureEngine;
beforeAll(() => {
  searxng = startSearxng();
  brave = startBrave();
});
afterAll(async () => {
  await searxng.close();
  await brave.close();
});

const signal = () => new AbortController().signal;
const expected = FIXTURE_HITS.slice(0, 3).map(({ date, ...h }) => (date ? { ...h, date } : h));

const engines: [string, () => FixtureEngine, () => SearchProvider][] = [
  [
    'searxng',
    () => searxng,
    () => createSearchProvider(parseSearchConfig({ provider: 'searxng', baseUrl: `${searxng.url}/`, timeoutMs: 300 }), fetch)!,
  ],
  [
    'brave',
    () => brave,
    () => createSearchProvider(parseSearchConfig({ provider: 'brave', baseUrl: brave.url, apiKey: 'brave-key', timeoutMs: 300 }), fetch)!,
  ],
];

describe.each(engines)('%s adapter', (name, engine, provider) => {
  test('maps hits to {title, url, content, date}', async () => {
    engine().set({});
    const hits = await provider().search('sea otters 2026', { signal: signal(), count: 3 });
    expect(hits).toEqual(expected);
    expect(engine().queries.at(-1)).toBe('sea otters 2026');
  });

  test('returns at most `count` hits', async () => {
    engine().set({ hits: 6 });
    expect(await provider().search('q', { signal: signal(), count: 2 })).toHaveLength(2);
  });

  test.each([
    ['5xx', { status: 503 }, /HTTP 503/],
    ['garbage', { garbage: true }, new RegExp(name)],
    ['timeout', { delayMs: 1000 }, /within 300 ms/],
  ])('%s -> SearchFailed', async (_, behaviour, message) => {
    engine().set(behaviour);
    const error = await provider()
      .search('q', { signal: signal(), count: 3 })
      .catch((e) => e);
    expect(error).toBeInstanceOf(SearchFailed);
    expect(error.message).toMatch(message);
  });
});

test('brave sends the subscription token; searxng asks for the json format', async () => {
  brave.set({});
  searxng.set({});
  await engines[1]![2]().search('x', { signal: signal(), count: 1 });
  expect(brave.headers.at(-1)!['x-subscription-token']).toBe('brave-key');
  await engines[0]![2]().search('x', { signal: signal(), count: 1 });
  expect(searxng.queries.at(-1)).toBe('x');
});

describe('search config', () => {
  test('defaults: no provider, prices and scraping limits set', () => {
    const c = parseSearchConfig(undefined);
    expect(c.provider).toBeUndefined();
    expect(c).toMatchObject({ timeoutMs: 5000, maxResults: 5, priceMicros: 10_000, xSearchPriceMicros: 25_000 });
    expect(c.scraping).toEqual({ timeoutMs: 10_000, maxBytes: 2_000_000, maxCharsPerPage: 8_000, priceMicros: 5_000 });
    expect(createSearchProvider(c, fetch)).toBeNull();
  });

  test.each([
    [{ provider: 'google' }, 'search.provider'],
    [{ provider: 'searxng' }, 'search.baseUrl'],
    [{ provider: 'brave' }, 'search.apiKey'],
    [{ provider: 'searxng', baseUrl: 'ftp://x' }, 'search.baseUrl'],
    [{ timeoutMs: 'fast' }, 'search.timeoutMs'],
    [{ scraping: { maxBytes: 1 } }, 'search.scraping.maxBytes'],
    [{ unknown: 1 }, 'search'],
  ])('%j is refused naming %s', (raw, field) => {
    expect(() => parseSearchConfig(raw as Record<string, unknown>)).toThrow(field);
  });
});
