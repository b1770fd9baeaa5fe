import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import type OpenAI from 'openai';
import type { TestApp } from '../helpers/app';
import { GEMINI_CACHED_TOKENS, GEMINI_PROMPT_TOKENS, startGeminiUpstream, type GeminiFixture } from '../fixtures/gemini-upstream';
import { nativeModel, startNativeApp, usageLinesOf } from './helpers';

let up: GeminiFixture;
let t: TestApp;
let client: OpenAI;

beforeAll(async () => {
  up = startGeminiUpstream();
  ({ t, client } = await startNativeApp({
    providers: [{ id: 'gemini-up', kind: 'gemini', baseURL: up.url, apiKey: 'AIza-fixture', timeoutMs: 1000 }],
    models: [
      // Asks for the service prompt (an operator's model gets none unless its entry says so).
      { ...nativeModel('gemini-test', 'gemini-up', 'gemini-fixture'), includeSvcSystemPrompt: true },
      {
        id: 'gemini-embed',
        type: 'embedding',
        routes: [{ provider: 'gemini-up', model: 'text-embedding-fixture' }],
        pricing: { input: '0.15' },
      },
    ],
  }));
}, 20_000);
afterAll(async () => {
  await t.close();
  await up.close();
});
beforeEach(() => {
  up.set({});
  up.requests.length = 0;
});

const last = () => up.requests[up.requests.length - 1]!;
const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Weather of a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } } },
  },
};

describe('the openai SDK in front of a Gemini upstream', () => {
  test('plain: generateContent with the key in a header, system instruction and contents; the answer and usage', async () => {
    const { data, response } = await client.chat.completions
      .create({
        model: 'gemini-test',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Hi' },
        ],
        stop: 'END',
        temperature: 0.3,
      })
      .withResponse();
    expect(response.headers.get('x-svc-model-id')).toBe('gemini-test');
    expect(data.choices[0]!.message.content).toBe('Hello from Gemini.');
    expect(data.choices[0]!.finish_reason).toBe('stop');
    expect(data.usage).toMatchObject({ prompt_tokens: GEMINI_PROMPT_TOKENS + GEMINI_CACHED_TOKENS, completion_tokens: 7 });
    const req = last();
    expect(req.path).toBe('/v1beta/models/gemini-fixture:generateContent');
    expect(req.search).toBe('');
    expect(req.headers['x-goog-api-key']).toBe('AIza-fixture');
    expect(req.body.systemInstruction).toEqual({ parts: [{ text: 'You are a helpful assistant.\n\nBe brief.' }] });
    expect(req.body.contents).toEqual([{ role: 'user', parts: [{ text: 'Hi' }] }]);
    expect(req.body.generationConfig).toEqual({ maxOutputTokens: 4096, temperature: 0.3, stopSequences: ['END'] });
  });

  test('streamed: streamGenerateContent over SSE, one chunk per event, the finish reason, then usage', async () => {
    let text = '';
    const finishes: string[] = [];
    let usage: OpenAI.CompletionUsage | undefined;
    const stream = await client.chat.completions.create({
      model: 'gemini-test',
      messages: [{ role: 'user', content: 'Hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.choices[0]?.finish_reason) finishes.push(chunk.choices[0].finish_reason);
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('Hello from Gemini.');
    expect(finishes).toEqual(['stop']);
    expect(usage).toMatchObject({ prompt_tokens: GEMINI_PROMPT_TOKENS + GEMINI_CACHED_TOKENS, completion_tokens: 7 });
    expect(last().path).toBe('/v1beta/models/gemini-fixture:streamGenerateContent');
    expect(last().search).toBe('?alt=sse');
  });

  test('tools: a function call as a tool call, then the function response named after it', async () => {
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
    const first = await client.chat.completions.create({
      model: 'gemini-test',
      messages,
      tools: [weatherTool],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
    });
    const call = first.choices[0]!.message.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall;
    expect(call.function).toEqual({ name: 'get_weather', arguments: '{"city":"Paris"}' });
    expect(first.choices[0]!.finish_reason).toBe('tool_calls');
    expect(last().body.tools).toEqual([
      {
        functionDeclarations: [
          { name: 'get_weather', description: 'Weather of a city', parametersJsonSchema: weatherTool.function.parameters },
        ],
      },
    ]);
    expect(last().body.toolConfig).toEqual({ functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather'] } });

    messages.push({ role: 'assistant', content: null, tool_calls: [call] });
    messages.push({ role: 'tool', tool_call_id: call.id, content: '18 C, sunny' });
    let text = '';
    for await (const chunk of await client.chat.completions.create({ model: 'gemini-test', messages, tools: [weatherTool], stream: true }))
      text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('It is sunny in Paris.');
    expect(last().body.contents.slice(1)).toEqual([
      { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }] },
      { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { result: '18 C, sunny' } } }] },
    ]);
  });

  test('tools, streamed: the call arrives whole with index 0', async () => {
    const calls: unknown[] = [];
    for await (const chunk of await client.chat.completions.create({
      model: 'gemini-test',
      messages: [{ role: 'user', content: 'Weather?' }],
      tools: [weatherTool],
      stream: true,
    }))
      calls.push(...(chunk.choices[0]?.delta.tool_calls ?? []));
    expect(calls).toEqual([{ index: 0, id: 'call_0', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }]);
  });

  test('images: a data URL as inline data, an https URL as file data', async () => {
    await client.chat.completions.create({
      model: 'gemini-test',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Compare' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.webp' } },
          ],
        },
      ],
    });
    expect(last().body.contents[0]!.parts).toEqual([
      { text: 'Compare' },
      { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
      { fileData: { fileUri: 'https://example.com/cat.webp', mimeType: 'image/webp' } },
    ]);
  });

  test('JSON schema: a JSON response with the schema, answered as JSON content', async () => {
    const schema = { type: 'object', properties: { answer: { type: 'number' } }, required: ['answer'] };
    const answer = await client.chat.completions.create({
      model: 'gemini-test',
      messages: [{ role: 'user', content: 'The answer?' }],
      response_format: { type: 'json_schema', json_schema: { name: 'answer', schema } },
    });
    expect(JSON.parse(answer.choices[0]!.message.content!)).toEqual({ answer: 42 });
    expect(last().body.generationConfig).toMatchObject({ responseMimeType: 'application/json', responseJsonSchema: schema });
  });

  test('thinking: a thinking budget with thoughts returned as reasoning_content; thought tokens are completion tokens', async () => {
    let reasoning = '';
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined;
    const stream = await client.chat.completions.create({
      model: 'gemini-test',
      messages: [{ role: 'user', content: 'Hi' }],
      reasoning_effort: 'low',
      stream: true,
      stream_options: { include_usage: true },
    });
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as { content?: string; reasoning_content?: string } | undefined;
      reasoning += delta?.reasoning_content ?? '';
      text += delta?.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(reasoning).toBe('Thinking about a greeting.');
    expect(text).toBe('Hello from Gemini.');
    expect(usage).toMatchObject({ completion_tokens: 12, completion_tokens_details: { reasoning_tokens: 5 } });
    expect(last().body.generationConfig?.thinkingConfig).toEqual({ thinkingBudget: 2048, includeThoughts: true });

    const off = await client.chat.completions.create({
      model: 'gemini-test:disable_thinking=true',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(last().body.generationConfig?.thinkingConfig).toEqual({ thinkingBudget: 0 });
    expect((off.choices[0]!.message as { reasoning_content?: string }).reasoning_content).toBeUndefined();
  });

  test('thinking with tools: the thought signature rides on the tool call and goes back with it', async () => {
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather?' }];
    const first = await client.chat.completions.create({ model: 'gemini-test', messages, tools: [weatherTool], reasoning_effort: 'low' });
    const call = first.choices[0]!.message.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall & { extra_content?: unknown };
    expect(call.extra_content).toEqual({ google: { thought_signature: 'c2lnbmF0dXJl' } });
    messages.push(first.choices[0]!.message as OpenAI.ChatCompletionAssistantMessageParam);
    messages.push({ role: 'tool', tool_call_id: call.id, content: '18 C' });
    await client.chat.completions.create({ model: 'gemini-test', messages, tools: [weatherTool], reasoning_effort: 'low' });
    expect(last().body.contents[1]!.parts!.find((p) => p.functionCall)).toEqual({
      functionCall: { name: 'get_weather', args: { city: 'Paris' } },
      thoughtSignature: 'c2lnbmF0dXJl',
    });
  });

  test('implicit caching: cached content tokens billed at the cache price in /billing/usage; cache_control is dropped', async () => {
    up.clearCache();
    const messages: OpenAI.ChatCompletionMessageParam[] = [
      {
        role: 'system',
        content: [
          { type: 'text', text: 'A shared handbook.', cache_control: { type: 'ephemeral' } } as OpenAI.ChatCompletionContentPartText,
        ],
      },
      { role: 'user', content: 'Question' },
    ];
    await client.chat.completions.create({ model: 'gemini-test', messages });
    expect(JSON.stringify(last().body)).not.toContain('cache_control');
    const second = await client.chat.completions.create({ model: 'gemini-test', messages }).withResponse();
    expect(second.data.usage?.prompt_tokens_details?.cached_tokens).toBe(GEMINI_CACHED_TOKENS);
    const lines = await usageLinesOf(t, second.response.headers.get('cf-ray')!);
    expect(lines.map((l) => [l.sku, Math.round(l.amount * 1e6)]).sort()).toEqual([
      ['gemini-test-llm-cache-input-mtoken', 300], // 1,000 tokens at 0.30 USD / M
      ['gemini-test-llm-input-mtoken', 36], // 12 at 3
      ['gemini-test-llm-output-mtoken', 210], // 7 at 30
    ]);
  });

  test('embeddings: one text is embedContent, a list batchEmbedContents; floats or base64', async () => {
    const one = await client.embeddings.create({ model: 'gemini-embed', input: 'hello', dimensions: 3, encoding_format: 'float' });
    expect(one.data).toEqual([{ object: 'embedding', index: 0, embedding: [1 / 2, 1 / 3, 1 / 4] }]);
    expect(last().path).toBe('/v1beta/models/text-embedding-fixture:embedContent');
    expect(last().body).toEqual({ content: { role: 'user', parts: [{ text: 'hello' }] }, outputDimensionality: 3 } as never);

    // The SDK asks for base64 and decodes it to floats.
    const many = await client.embeddings.create({ model: 'gemini-embed', input: ['a', 'b'] });
    expect(many.data.map((d) => d.embedding)).toEqual([
      [1 / 2, 1 / 3, 1 / 4, 1 / 5].map(Math.fround),
      [2 / 2, 2 / 3, 2 / 4, 2 / 5].map(Math.fround),
    ]);
    expect(last().path).toBe('/v1beta/models/text-embedding-fixture:batchEmbedContents');
    expect((last().body.requests as unknown[])[1]).toEqual({
      model: 'models/text-embedding-fixture',
      content: { role: 'user', parts: [{ text: 'b' }] },
    });
    expect(many.usage.prompt_tokens).toBeGreaterThan(0);
  });
});
