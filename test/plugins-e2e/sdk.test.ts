import { afterAll, beforeAll, beforeEach, expect, test } from 'bun:test';
import OpenAI from 'openai';
import { startPluginWorld, type PluginWorld } from './setup';

let w: PluginWorld;
let client: OpenAI;
beforeAll(async () => {
  w = await startPluginWorld();
  w.t.app.listen({ port: 0, hostname: '127.0.0.1' });
  client = new OpenAI({ baseURL: `http://127.0.0.1:${w.t.app.server?.port}/api/v1`, apiKey: w.t.adminKey, maxRetries: 0 });
});
afterAll(async () => {
  await w.t.app.stop(true);
  await w.close();
});
beforeEach(() => w.reset());

type WithSvc = { svc_parameters?: { web_search_citations?: { url: string }[] } };

test('openai SDK stream: search-results chunk first, documents tool call, stripped thinking, usage', async () => {
  w.upstream.set({ tokens: ['<think>', 'hmm', '</think>', 'Otters', ' rock'], splitBytes: 7 });
  const stream = await client.chat.completions.create({
    model: 'fix-plain:enable_web_search=on&strip_thinking_response=true',
    messages: [{ role: 'user', content: 'otters' }],
    stream: true,
    stream_options: { include_usage: true },
    // @ts-expect-error svc extension of the request body
    svc_parameters: { include_search_results_in_stream: true, return_search_results_as_documents: true },
  });
  const chunks = [];
  for await (const chunk of stream) chunks.push(chunk);
  expect((chunks[0] as unknown as WithSvc).svc_parameters?.web_search_citations).toHaveLength(3);
  expect(chunks[1]!.choices[0]!.delta.tool_calls?.[0]?.function?.name).toBe('svc_web_search_documents');
  expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('Otters rock');
  expect(chunks.at(-1)!.usage?.total_tokens).toBe(15);
});

test('openai SDK non-streaming: citations echo and documents tool call', async () => {
  const res = await client.chat.completions.create({
    model: 'fix-plain',
    messages: [{ role: 'user', content: 'otters' }],
    // @ts-expect-error svc extension of the request body
    svc_parameters: { enable_web_search: 'on', return_search_results_as_documents: true, character_slug: 'alan-watts' },
  });
  expect((res as unknown as WithSvc).svc_parameters?.web_search_citations?.map((c) => c.url)).toContain('https://usgs.gov/otter-survey');
  expect(res.choices[0]!.message.tool_calls?.[0]?.type).toBe('function');
  expect(res.choices[0]!.message.content).toBe('Hello from the fixture.');
});

test('the OpenAPI description lists every svc_parameters option', async () => {
  const doc = await (await w.t.request('/openapi.json')).json();
  const body = JSON.stringify(doc.paths['/chat/completions']);
  for (const key of [
    'character_slug',
    'include_svc_system_prompt',
    'strip_thinking_response',
    'disable_thinking',
    'enable_web_search',
    'enable_web_citations',
    'include_search_results_in_stream',
    'return_search_results_as_documents',
    'enable_web_scraping',
    'enable_x_search',
  ])
    expect(body).toContain(`"${key}"`);
  expect(JSON.stringify(doc.paths['/characters/{slug}/reviews'])).toContain('getCharacterReviews');
});
