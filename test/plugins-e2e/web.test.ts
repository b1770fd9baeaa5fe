import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { contentOf, sseData } from '../chat/helpers';
import { FIXTURE_HITS } from '../fixtures/search-engines';
import { startPluginWorld, type PluginWorld } from './setup';

let w: PluginWorld;
beforeAll(async () => {
  w = await startPluginWorld();
});
afterAll(() => w.close());
beforeEach(() => w.reset());

const ask = (text: string) => [{ role: 'user', content: text }];
const systemText = () => (w.lastUpstream().messages[0]?.role === 'system' ? String(w.lastUpstream().messages[0]!.content) : '');
const extras = () => w.meter.calls.settled.flatMap((s) => s.extras ?? []);
const hits = FIXTURE_HITS.slice(0, 3).map(({ date, ...h }) => (date ? { ...h, date } : h));

describe('enable_web_search through POST /chat/completions', () => {
  test('on (JSON): results in the upstream prompt, citations echoed, one search charged', async () => {
    const res = await w.chat({ messages: ask('How many sea otters live in California?'), svc_parameters: { enable_web_search: 'on' } });
    expect(res.status).toBe(200);
    expect(w.engine.queries).toEqual(['How many sea otters live in California?']);
    expect(systemText()).toContain('[2] Southern sea otter survey 2026');
    const body = await res.json();
    expect(body.svc_parameters.enable_web_search).toBe('on');
    expect(body.svc_parameters.web_search_citations).toEqual(hits);
    expect(extras()).toEqual([{ sku: 'web-search', units: 1, unitPriceMicros: 10_000 }]);
  });

  test('suffix enable_web_search=on&enable_web_citations=true asks for [REF] citations', async () => {
    const res = await w.chat({ model: 'fix-plain:enable_web_search=on&enable_web_citations=true', messages: ask('otters') });
    expect(systemText()).toContain('[REF]0[/REF]');
    expect((await res.json()).svc_parameters).toMatchObject({ enable_web_search: 'on', enable_web_citations: true });
  });

  test('off (default): no search, no charge, no citations echo', async () => {
    const body = await (await w.chat({ messages: ask('latest otter news') })).json();
    expect(w.engine.queries).toEqual([]);
    expect(body.svc_parameters.enable_web_search).toBe('off');
    expect(body.svc_parameters).not.toHaveProperty('web_search_citations');
    expect(extras()).toEqual([]);
  });

  test('auto: a function-calling model searches for current facts only', async () => {
    await w.chat({ model: 'fix-fc:enable_web_search=auto', messages: ask('Write a haiku') });
    expect(w.engine.queries).toEqual([]);
    await w.chat({ model: 'fix-fc:enable_web_search=auto', messages: ask('What is the latest otter news?') });
    expect(w.engine.queries).toEqual(['What is the latest otter news?']);
    await w.chat({ model: 'fix-plain:enable_web_search=auto', messages: ask('Write a haiku') });
    expect(w.engine.queries).toHaveLength(2);
  });

  test('stream: include_search_results_in_stream puts the citations in the FIRST chunk, documents tool call next', async () => {
    const res = await w.chat({
      stream: true,
      messages: ask('otters'),
      svc_parameters: { enable_web_search: 'on', include_search_results_in_stream: true, return_search_results_as_documents: true },
    });
    expect(res.status).toBe(200);
    const events = (await sseData(res)) as any[];
    expect(events[0]).toMatchObject({ object: 'chat.completion.chunk', choices: [], svc_parameters: { web_search_citations: hits } });
    const call = events[1]!.choices[0].delta.tool_calls[0];
    expect(call).toMatchObject({
      index: 0,
      id: 'svc_web_search_documents',
      type: 'function',
      function: { name: 'svc_web_search_documents' },
    });
    expect(JSON.parse(call.function.arguments).documents.map((d: { url: string }) => d.url)).toEqual(hits.map((h) => h.url));
    expect(contentOf(events)).toBe('Hello from the fixture.');
    expect(events.at(-1)).toBe('[DONE]');
    expect(extras()).toEqual([{ sku: 'web-search', units: 1, unitPriceMicros: 10_000 }]);
  });

  test('JSON: return_search_results_as_documents adds the svc_web_search_documents tool call', async () => {
    const body = await (
      await w.chat({ messages: ask('otters'), svc_parameters: { enable_web_search: 'on', return_search_results_as_documents: true } })
    ).json();
    const call = body.choices[0].message.tool_calls[0];
    expect(call.function.name).toBe('svc_web_search_documents');
    expect(JSON.parse(call.function.arguments).documents).toHaveLength(3);
    expect(body.choices[0].message.content).toBe('Hello from the fixture.');
  });

  test('engine down: the chat still answers, nothing is charged for search', async () => {
    w.engine.set({ status: 502 });
    const res = await w.chat({ messages: ask('otters'), svc_parameters: { enable_web_search: 'on' } });
    expect(res.status).toBe(200);
    expect((await res.json()).svc_parameters).not.toHaveProperty('web_search_citations');
    expect(extras()).toEqual([]);
  });

  test('invalid values are 400 naming the field (body and suffix)', async () => {
    const body = await w.chat({ svc_parameters: { enable_web_search: 'sometimes' } });
    expect(body.status).toBe(400);
    expect((await body.json()).details.svc_parameters.enable_web_search._errors[0]).toContain('off, on, auto');
    const suffix = await w.chat({ model: 'fix-plain:enable_web_search=maybe' });
    expect(suffix.status).toBe(400);
    expect(JSON.stringify(await suffix.json())).toContain('enable_web_search');
  });
});

describe('enable_web_scraping through POST /chat/completions', () => {
  test('the linked pages are in the upstream prompt; web search is bypassed; only successes are charged', async () => {
    const text = `Summarise ${w.site.origin}/article and ${w.site.origin}/missing please`;
    const res = await w.chat({ messages: ask(text), svc_parameters: { enable_web_scraping: true, enable_web_search: 'on' } });
    expect(res.status).toBe(200);
    expect(systemText()).toContain('Sea otters use rocks as tools');
    expect(systemText()).toContain('/missing could not be read');
    expect(w.engine.queries).toEqual([]);
    expect(extras()).toEqual([{ sku: 'web-scrape', units: 1, unitPriceMicros: 4_000 }]);
    expect((await res.json()).svc_parameters.enable_web_scraping).toBe(true);
  });

  test('as a suffix, streaming', async () => {
    const events = await sseData(
      await w.chat({ model: 'fix-plain:enable_web_scraping=true', stream: true, messages: ask(`${w.site.origin}/second`) }),
    );
    expect(systemText()).toContain('lighthouses');
    expect(contentOf(events)).toBe('Hello from the fixture.');
  });
});

describe('enable_x_search through POST /chat/completions', () => {
  test('supporting model: native search_parameters upstream, web search bypassed, x-search charged', async () => {
    const res = await w.chat({
      model: 'fix-x',
      messages: ask('trending otters'),
      svc_parameters: { enable_x_search: true, enable_web_search: 'on' },
    });
    expect(res.status).toBe(200);
    expect(w.lastUpstream().search_parameters).toEqual({ mode: 'on', sources: [{ type: 'web' }, { type: 'x' }], return_citations: true });
    expect(w.engine.queries).toEqual([]);
    expect(extras()).toEqual([{ sku: 'x-search', units: 1, unitPriceMicros: 20_000 }]);
    expect((await res.json()).svc_parameters).not.toHaveProperty('enable_x_search');
  });

  test('other models: no native option; the standard web search still runs', async () => {
    await w.chat({ messages: ask('otters'), svc_parameters: { enable_x_search: true, enable_web_search: 'on' } });
    expect(w.lastUpstream()).not.toHaveProperty('search_parameters');
    expect(w.engine.queries).toEqual(['otters']);
  });

  test('enable_x_search is not a suffix key: the suffix is ignored', async () => {
    const res = await w.chat({ model: 'fix-x:enable_x_search=true' });
    expect(res.status).toBe(200);
    expect(w.lastUpstream()).not.toHaveProperty('search_parameters');
  });
});

describe('SSRF guard on (allowPrivateUrls false)', () => {
  let guarded: PluginWorld;
  beforeAll(async () => {
    guarded = await startPluginWorld({ allowPrivateUrls: false });
  });
  afterAll(() => guarded.close());

  test('loopback, private, link-local and IPv6 URLs in the message are not fetched and not charged', async () => {
    const before = guarded.site.hits.get('/article') ?? 0;
    const urls = [
      `${guarded.site.origin}/article`,
      `http://[::1]:${guarded.site.port}/article`,
      `http://[::ffff:127.0.0.1]:${guarded.site.port}/article`,
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.1/',
    ];
    const res = await guarded.chat({ messages: ask(urls.join(' ')), svc_parameters: { enable_web_scraping: true } });
    expect(res.status).toBe(200);
    expect(guarded.site.hits.get('/article') ?? 0).toBe(before);
    const system = String(guarded.lastUpstream().messages[0]!.content);
    expect(system.match(/could not be read/g)).toHaveLength(5);
    expect(system).toContain('loopback address');
    expect(system).toContain('link-local address');
    expect(system).toContain('private address');
    expect(guarded.meter.calls.settled.flatMap((s) => s.extras ?? [])).toEqual([]);
  });
});

describe('web search with the Brave adapter', () => {
  let b: PluginWorld;
  beforeAll(async () => {
    b = await startPluginWorld({ engine: 'brave' });
  });
  afterAll(() => b.close());

  test('citations come from the Brave fixture, markup removed, token sent', async () => {
    const body = await (await b.chat({ messages: ask('sea otters'), svc_parameters: { enable_web_search: 'on' } })).json();
    expect(body.svc_parameters.web_search_citations).toEqual(hits);
    expect(b.engine.headers[0]!['x-subscription-token']).toBe('brave-test-key');
    expect(String(b.lastUpstream().messages[0]!.content)).toContain('[0] Sea otter - Wikipedia');
  });
});
