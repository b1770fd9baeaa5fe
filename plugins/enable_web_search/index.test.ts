import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import type { ChatCompletion } from '../../src/stream/wire';
import type { PluginContext } from '../../src/pipeline/plugin';
import { FIXTURE_HITS, type FixtureEngine } from '../../test/fixtures/search-engines';
import { startSearxng } from '../../test/fixtures/search-searxng';
import { testContext, testModel, testRequest } from '../../test/plugins-e2e/context';
import { enableWebSearch as plugin } from './index';

let engine: FixtureEngine;
beforeAll(() => {
  engine = startSearxng();
});
afterAll(() => engine.close());
beforeEach(() => {
  engine.set({});
  engine.queries.length = 0;
});

// Generous by default: the first search of a cold test process can take most of a second.
const search = (timeoutMs = 5000) => ({ provider: 'searxng', baseUrl: engine.url, timeoutMs, maxResults: 3, priceMicros: 7000 });
const plainModel = testModel({});
const fcModel = testModel({ supportsFunctionCalling: true });
const xModel = testModel({ supportsXSearch: true });
const ctxWith = (
  params: Record<string, unknown>,
  o: { stream?: boolean; model?: typeof plainModel; noSearch?: boolean; timeoutMs?: number } = {},
) => testContext({ params, stream: o.stream, model: o.model ?? plainModel, config: o.noSearch ? {} : { search: search(o.timeoutMs) } });
const ask = (text: string) =>
  testRequest([
    { role: 'system', content: 'Caller' },
    { role: 'user', content: 'earlier' },
    { role: 'assistant', content: 'ok' },
    { role: 'user', content: text },
  ]);
const systemOf = (req: ReturnType<typeof ask>) => req.messages[0]!.content as string;
const hits = FIXTURE_HITS.slice(0, 3).map(({ date, ...h }) => (date ? { ...h, date } : h));

async function run(ctx: PluginContext, text = 'sea otters') {
  const req = ask(text);
  if (plugin.isActive(ctx)) await plugin.transformRequest!(req, ctx);
  return req;
}

describe('enable_web_search: activation', () => {
  test('off (default) is inactive; on and auto are active, with or without an engine', () => {
    expect(plugin.isActive(ctxWith({ enable_web_search: 'off' }))).toBe(false);
    expect(plugin.isActive(ctxWith({ enable_web_search: 'on' }, { noSearch: true }))).toBe(true);
    expect(plugin.isActive(ctxWith({ enable_web_search: 'on' }))).toBe(true);
    expect(plugin.isActive(ctxWith({ enable_web_search: 'auto' }))).toBe(true);
  });

  test("no engine configured: 'on' is a 400 that says so, 'auto' answers without search and says so in the echo", async () => {
    const on = ctxWith({ enable_web_search: 'on' }, { noSearch: true });
    const error = await run(on).catch((e) => e);
    // A client error naming the field (the 400 body it becomes: test/simulator/search.test.ts).
    expect(error.status).toBe(400);
    expect(error.field).toEqual(['svc_parameters', 'enable_web_search']);
    expect(error.message).toStartWith("is 'on' but this server has no web search engine configured");
    const auto = ctxWith({ enable_web_search: 'auto' }, { noSearch: true });
    const req = await run(auto);
    expect(systemOf(req)).toBe('Caller');
    expect(auto.echo.web_search_unavailable).toContain('no web search engine configured');
    expect(auto.extraCharges).toEqual([]);
  });

  test('enable_x_search on a supporting model bypasses web search', () => {
    expect(plugin.isActive(ctxWith({ enable_web_search: 'on', enable_x_search: true }, { model: xModel }))).toBe(false);
    expect(plugin.isActive(ctxWith({ enable_web_search: 'on', enable_x_search: true }, { model: plainModel }))).toBe(true);
  });

  test('declares the four parameters as suffix keys with the reference defaults', () => {
    expect(plugin.suffixKeys).toEqual([
      'enable_web_search',
      'enable_web_citations',
      'include_search_results_in_stream',
      'return_search_results_as_documents',
    ]);
    expect(plugin.parameters.enable_web_search!.default).toBe('off');
  });
});

describe('enable_web_search: on', () => {
  test('searches the last user message, puts the results before the caller prompt, echoes and charges', async () => {
    const ctx = ctxWith({ enable_web_search: 'on' });
    const req = await run(ctx, 'How many sea otters are there?');
    expect(engine.queries).toEqual(['How many sea otters are there?']);
    const system = systemOf(req);
    expect(system).toContain('[0] Sea otter - Wikipedia');
    expect(system).toContain('URL: https://usgs.gov/otter-survey');
    expect(system).toContain('The 2026 census counted 3,000 southern sea otters.');
    expect(system.endsWith('\n\nCaller')).toBe(true);
    expect(system).not.toContain('[REF]');
    expect(ctx.echo.web_search_citations).toEqual(hits);
    expect(ctx.extraCharges).toEqual([{ sku: 'web-search', units: 1, unitPriceMicros: 7000 }]);
    expect(ctx.leadingChunks).toEqual([]);
  });

  test('enable_web_citations asks for [REF]0[/REF] citations', async () => {
    const req = await run(ctxWith({ enable_web_search: 'on', enable_web_citations: true }));
    expect(systemOf(req)).toContain('[REF]0[/REF]');
  });

  test('an engine failure or timeout answers without search: nothing charged, nothing echoed', async () => {
    for (const behaviour of [{ status: 500 }, { delayMs: 800 }]) {
      engine.set(behaviour);
      const ctx = ctxWith({ enable_web_search: 'on' }, { timeoutMs: 300 });
      const req = await run(ctx);
      expect(systemOf(req)).toBe('Caller');
      expect(ctx.extraCharges).toEqual([]);
      expect(ctx.echo).toEqual({});
    }
  });

  test('a client that goes away mid-search cancels it: nothing charged', async () => {
    engine.set({ delayMs: 250 });
    const abort = new AbortController();
    const ctx = { ...ctxWith({ enable_web_search: 'on' }), signal: abort.signal };
    const started = performance.now();
    const pending = run(ctx);
    setTimeout(() => abort.abort(), 20);
    await pending;
    expect(performance.now() - started).toBeLessThan(200);
    expect(ctx.extraCharges).toEqual([]);
  });

  test('no results: the search is charged and echoed empty, the prompt is unchanged', async () => {
    engine.set({ hits: 0 });
    const ctx = ctxWith({ enable_web_search: 'on' });
    const req = await run(ctx);
    expect(ctx.echo.web_search_citations).toEqual([]);
    expect(ctx.extraCharges).toHaveLength(1);
    expect(systemOf(req)).toBe('Caller');
  });

  test('enable_web_scraping with a URL in the message bypasses web search', async () => {
    const ctx = ctxWith({ enable_web_search: 'on', enable_web_scraping: true });
    await run(ctx, 'Summarise https://example.org/page');
    expect(engine.queries).toEqual([]);
    expect(ctx.extraCharges).toEqual([]);
    // Without a URL the search still runs.
    await run(ctx, 'no link here');
    expect(engine.queries).toEqual(['no link here']);
  });
});

describe('enable_web_search: auto', () => {
  test('models without function calling always search', async () => {
    const ctx = ctxWith({ enable_web_search: 'auto' }, { model: plainModel });
    await run(ctx, 'Tell me a joke');
    expect(engine.queries).toEqual(['Tell me a joke']);
  });

  test('function-calling models search only when the message asks for current facts', async () => {
    const quiet = ctxWith({ enable_web_search: 'auto' }, { model: fcModel });
    await run(quiet, 'Tell me a joke');
    expect(engine.queries).toEqual([]);
    expect(quiet.extraCharges).toEqual([]);
    for (const q of [
      'What is the latest news on otters?',
      'Bitcoin price right now',
      'Who won the 2026 world cup?',
      'Please search for otter facts',
    ]) {
      await run(ctxWith({ enable_web_search: 'auto' }, { model: fcModel }), q);
    }
    expect(engine.queries).toHaveLength(4);
  });
});

describe('enable_web_search: stream chunk and documents', () => {
  test('include_search_results_in_stream: the first chunk carries svc_parameters.web_search_citations', async () => {
    const ctx = ctxWith({ enable_web_search: 'on', include_search_results_in_stream: true }, { stream: true });
    await run(ctx);
    expect(ctx.leadingChunks).toHaveLength(1);
    expect(ctx.leadingChunks[0]).toMatchObject({
      object: 'chat.completion.chunk',
      choices: [],
      svc_parameters: { web_search_citations: hits },
    });
  });

  test('return_search_results_as_documents (stream): a svc_web_search_documents tool call chunk follows the citations', async () => {
    const ctx = ctxWith(
      { enable_web_search: 'on', include_search_results_in_stream: true, return_search_results_as_documents: true },
      { stream: true },
    );
    await run(ctx);
    expect(ctx.leadingChunks).toHaveLength(2);
    const call = (
      ctx.leadingChunks[1]!.choices[0]!.delta.tool_calls as { index: number; function: { name: string; arguments: string } }[]
    )[0]!;
    expect(call.index).toBe(0);
    expect(call.function.name).toBe('svc_web_search_documents');
    const docs = JSON.parse(call.function.arguments).documents;
    expect(docs[0]).toEqual({
      id: '0',
      title: hits[0]!.title,
      url: hits[0]!.url,
      snippet: hits[0]!.content,
      published_at: FIXTURE_HITS[0]!.date,
    });
    expect(docs).toHaveLength(3);
  });

  test('return_search_results_as_documents (JSON): the tool call is added to the message', async () => {
    const ctx = ctxWith({ enable_web_search: 'on', return_search_results_as_documents: true });
    await run(ctx);
    const body: ChatCompletion = {
      id: 'x',
      object: 'chat.completion',
      created: 1,
      model: 'm',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Otters!' }, finish_reason: 'stop', logprobs: null }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    };
    const out = await plugin.transformResponse!(body, ctx);
    const calls = out.choices[0]!.message.tool_calls as { id: string; type: string; function: { name: string; arguments: string } }[];
    expect(calls[0]).toMatchObject({ id: 'svc_web_search_documents', type: 'function', function: { name: 'svc_web_search_documents' } });
    expect(JSON.parse(calls[0]!.function.arguments).documents).toHaveLength(3);
    expect(out.choices[0]!.message.content).toBe('Otters!');
  });
});
