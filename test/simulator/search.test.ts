import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import OpenAI from 'openai';
import { startUpstream, type FixtureUpstream } from '../fixtures/openai-upstream';
import { fixtureModel, fixtureProvider } from '../chat/helpers';
import { startTestApp, type TestApp } from '../helpers/app';

type Citation = { title: string; url: string; content: string };
const chat = (t: TestApp, body: Record<string, unknown>) =>
  t.request('/chat/completions', { method: 'POST', json: { messages: [{ role: 'user', content: 'sea otters news' }], ...body } });

describe('default configuration: the simulated search engine', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  test('enable_web_search on with citations: labelled simulated results, echoed, cited, charged', async () => {
    const res = await chat(t, { model: 'llama-3.3-70b', svc_parameters: { enable_web_search: 'on', enable_web_citations: true } });
    expect(res.status).toBe(200);
    const body = await res.json();
    const citations = body.svc_parameters.web_search_citations as Citation[];
    expect(citations.length).toBe(5);
    for (const c of citations) {
      expect(c.title).toStartWith('[Simulated] ');
      expect(c.url).toStartWith('https://example.com/svc-simulated-search/');
      expect(c.content).toContain('simulated search engine');
    }
    expect(body.choices[0].message.content).toContain(
      'The web search gave 5 results; the first is "[Simulated] Result 1 for "sea otters news""[REF]0[/REF].',
    );
    const usage = await (await t.request('/billing/usage-history')).json();
    expect(usage.data.map((e: { sku: string }) => e.sku)).toContain('web-search');
  });

  test('streamed: the results come first, then the documents tool call (openai SDK)', async () => {
    t.app.listen({ port: 0, hostname: '127.0.0.1' });
    try {
      const client = new OpenAI({ baseURL: `http://127.0.0.1:${t.app.server?.port}/api/v1`, apiKey: t.adminKey, maxRetries: 0 });
      const stream = await client.chat.completions.create({
        model: 'qwen3-4b:enable_web_search=on&include_search_results_in_stream=true&return_search_results_as_documents=true',
        messages: [{ role: 'user', content: 'otters' }],
        stream: true,
      });
      const chunks: Record<string, unknown>[] = [];
      for await (const c of stream) chunks.push(c as unknown as Record<string, unknown>);
      const first = chunks[0] as { svc_parameters: { web_search_citations: Citation[] } };
      expect(first.svc_parameters.web_search_citations[0]!.title).toStartWith('[Simulated]');
      const second = chunks[1] as { choices: { delta: { tool_calls: { function: { name: string } }[] } }[] };
      expect(second.choices[0]!.delta.tool_calls[0]!.function.name).toBe('svc_web_search_documents');
    } finally {
      await t.app.stop(true);
    }
  });

  test('enable_x_search on the default simulated model that supports it: simulated citations echoed, charged', async () => {
    const res = await chat(t, { model: 'grok-41-fast', svc_parameters: { enable_x_search: true, enable_web_search: 'on' } });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.choices[0].message.content).toContain('Simulated web and X search found 3 sources.');
    const urls = (body.svc_parameters.web_search_citations as Citation[]).map((c) => c.url);
    expect(urls).toHaveLength(3);
    expect(urls[0]).toStartWith('https://example.com/svc-simulated-search/');
    const usage = await (await t.request('/billing/usage-history')).json();
    const skus = usage.data.map((e: { sku: string }) => e.sku);
    expect(skus).toContain('x-search');
    const models = (await (await t.request('/models')).json()).data as {
      id: string;
      model_spec: { capabilities: { supportsXSearch: boolean } };
    }[];
    expect(models.find((m) => m.id === 'grok-41-fast')!.model_spec.capabilities.supportsXSearch).toBe(true);
  });
});

describe('an operator configuration without a search engine', () => {
  let t: TestApp;
  let up: FixtureUpstream;
  beforeAll(async () => {
    up = startUpstream('up');
    t = await startTestApp({ config: { providers: [fixtureProvider('up', up.url)], models: [fixtureModel('real-model', ['up'])] } });
  });
  afterAll(async () => {
    await t.close();
    await up.close();
  });

  test('enable_web_search on is a 400 that says no engine is configured; nothing goes upstream', async () => {
    const before = up.requests.length;
    const res = await chat(t, { model: 'real-model', svc_parameters: { enable_web_search: 'on' } });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.error).toBe(
      "Invalid body parameters: svc_parameters.enable_web_search: is 'on' but this server has no web search engine configured (config search.provider); send 'auto' to answer without search, or 'off'",
    );
    expect(body.details.svc_parameters.enable_web_search._errors).toHaveLength(1);
    expect(up.requests.length).toBe(before);
    const suffixed = await chat(t, { model: 'real-model:enable_web_search=on' });
    expect(suffixed.status).toBe(400);
  });

  test('auto answers without search and says so in the svc_parameters echo', async () => {
    const res = await chat(t, { model: 'real-model', svc_parameters: { enable_web_search: 'auto' } });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.svc_parameters.web_search_unavailable).toContain('no web search engine configured');
    expect(body.svc_parameters.web_search_citations).toBeUndefined();
    const streamed = await t.request('/chat/completions', {
      method: 'POST',
      json: {
        model: 'real-model',
        stream: true,
        messages: [{ role: 'user', content: 'news?' }],
        svc_parameters: { enable_web_search: 'auto' },
      },
    });
    expect(streamed.status).toBe(200);
    const first = JSON.parse((await streamed.text()).split('\n\n')[0]!.replace(/^data: /, ''));
    expect(first.choices).toEqual([]);
    expect(first.svc_parameters.web_search_unavailable).toContain('no web search engine configured');
  });

  test('an overloaded upstream (503 with Retry-After) is a 503 with Retry-After', async () => {
    up.set({ status: 503, retryAfter: '2' });
    const res = await chat(t, { model: 'real-model' });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('2');
    expect((await res.json()).error).toBe('The model is at capacity. Please retry in 2 s.');
    up.set({ status: 429 });
    const unsaid = await chat(t, { model: 'real-model' });
    expect(unsaid.headers.get('retry-after')).toBe('5');
    up.set({});
  });

  test('the openai SDK reads that Retry-After, waits it out and succeeds on its retry', async () => {
    up.set({ status: 503, retryAfter: '1' });
    t.app.listen({ port: 0, hostname: '127.0.0.1' });
    try {
      const seen: { status: number; retryAfter: string | null; at: number }[] = [];
      const client = new OpenAI({
        baseURL: `http://127.0.0.1:${t.app.server?.port}/api/v1`,
        apiKey: t.adminKey,
        maxRetries: 1,
        fetch: async (url, init) => {
          const res = await fetch(url, init);
          seen.push({ status: res.status, retryAfter: res.headers.get('retry-after'), at: Date.now() });
          if (res.status === 503) up.set({});
          return res;
        },
      });
      const done = await client.chat.completions.create({ model: 'real-model', messages: [{ role: 'user', content: 'hi' }] });
      expect(done.choices[0]!.message.content).toBe('Hello from the fixture.');
      expect(seen.map((s) => [s.status, s.retryAfter])).toEqual([
        [503, '1'],
        [200, null],
      ]);
      // The SDK waited the second it was told (its own backoff would have been about half that).
      expect(seen[1]!.at - seen[0]!.at).toBeGreaterThanOrEqual(950);
    } finally {
      await t.app.stop(true);
      up.set({});
    }
  });
});
