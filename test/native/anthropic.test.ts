import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import type OpenAI from 'openai';
import type { TestApp } from '../helpers/app';
import { CACHED_PREFIX_TOKENS, INPUT_TOKENS, startAnthropicUpstream, type AnthropicFixture } from '../fixtures/anthropic-upstream';
import { nativeModel, startNativeApp, usageLinesOf } from './helpers';

let up: AnthropicFixture;
let t: TestApp;
let client: OpenAI;

beforeAll(async () => {
  up = startAnthropicUpstream();
  ({ t, client } = await startNativeApp({
    providers: [
      { id: 'claude-up', kind: 'anthropic', baseURL: up.url, apiKey: 'sk-ant-fixture', timeoutMs: 1000 },
      { id: 'claude-old', kind: 'anthropic', baseURL: up.url, timeoutMs: 1000, options: { version: '2023-06-01' } },
    ],
    // claude-test asks for the service prompt (an operator's model gets none unless its entry says so).
    models: [
      { ...nativeModel('claude-test', 'claude-up', 'claude-fixture-9'), includeSvcSystemPrompt: true },
      nativeModel('claude-old-test', 'claude-old', 'claude-fixture-3'),
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

const sent = () => up.requests[up.requests.length - 1]!.body;
const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Weather of a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } } },
  },
};

describe('the openai SDK in front of an Anthropic Messages upstream', () => {
  test('plain: the answer, svc headers and usage; the upstream gets a Messages request with its key and version', async () => {
    const { data, response } = await client.chat.completions
      .create({
        model: 'claude-test',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Hi' },
        ],
        stop: ['END'],
      })
      .withResponse();
    expect(response.headers.get('x-svc-model-id')).toBe('claude-test');
    expect(response.headers.get('x-svc-model-router')).toBe('claude-up');
    expect(data.choices[0]!.message.content).toBe('Hello from Claude.');
    expect(data.choices[0]!.finish_reason).toBe('stop');
    expect(data.model).toBe('claude-test');
    expect(data.usage).toMatchObject({ prompt_tokens: INPUT_TOKENS, completion_tokens: 7, total_tokens: INPUT_TOKENS + 7 });
    const req = up.requests[0]!;
    expect(req.headers['x-api-key']).toBe('sk-ant-fixture');
    expect(req.headers['anthropic-version']).toBe('2026-10-21');
    expect(req.body).toMatchObject({ model: 'claude-fixture-9', max_tokens: 4096, stop_sequences: ['END'] });
    // svc's default system prompt first, then the caller's: both as system text, no system turn.
    expect(req.body.system).toEqual([{ type: 'text', text: 'You are a helpful assistant.\n\nBe brief.' }]);
    expect(req.body.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }]);
  });

  test('sampling fields: not in the current API version; sent (temperature at most 1) to an upstream on an older one, unless thinking', async () => {
    const body = { messages: [{ role: 'user' as const, content: 'Hi' }], temperature: 1.5, top_p: 0.9 };
    await client.chat.completions.create({ model: 'claude-test', ...body });
    expect(sent()).not.toContainAnyKeys(['temperature', 'top_p', 'top_k']);
    await client.chat.completions.create({ model: 'claude-old-test', ...body });
    expect(up.requests.at(-1)!.headers['anthropic-version']).toBe('2023-06-01');
    expect(sent()).toMatchObject({ temperature: 1, top_p: 0.9 });
    await client.chat.completions.create({ model: 'claude-old-test', ...body, reasoning_effort: 'low' });
    expect(sent()).not.toContainAnyKeys(['temperature', 'top_p']);
  });

  test('streamed: text deltas in order, a finish reason, then the usage chunk with cost', async () => {
    const stream = await client.chat.completions.create({
      model: 'claude-test',
      messages: [{ role: 'user', content: 'Hi' }],
      stream: true,
      stream_options: { include_usage: true },
      max_completion_tokens: 100,
    });
    let text = '';
    const finishes: string[] = [];
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.choices[0]?.finish_reason) finishes.push(chunk.choices[0].finish_reason);
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('Hello from Claude.');
    expect(finishes).toEqual(['stop']);
    expect(usage).toMatchObject({ prompt_tokens: INPUT_TOKENS, completion_tokens: 7 });
    expect(sent()).toMatchObject({ stream: true, max_tokens: 100 });
  });

  test('tools: a tool call streamed with its index and arguments, then the result round trip', async () => {
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
    const stream = await client.chat.completions.create({
      model: 'claude-test',
      messages,
      tools: [weatherTool],
      tool_choice: 'required',
      stream: true,
    });
    const calls: { index: number; id?: string; name?: string; args: string }[] = [];
    let finish = '';
    for await (const chunk of stream)
      for (const choice of chunk.choices) {
        for (const d of choice.delta.tool_calls ?? []) {
          const call = (calls[d.index] ??= { index: d.index, args: '' });
          if (d.id) call.id = d.id;
          if (d.function?.name) call.name = d.function.name;
          call.args += d.function?.arguments ?? '';
        }
        if (choice.finish_reason) finish = choice.finish_reason;
      }
    expect(calls).toEqual([{ index: 0, id: 'toolu_01', name: 'get_weather', args: '{"city":"Paris"}' }]);
    expect(finish).toBe('tool_calls');
    expect(sent().tools).toEqual([
      { name: 'get_weather', description: 'Weather of a city', input_schema: { type: 'object', properties: { city: { type: 'string' } } } },
    ]);
    expect(sent().tool_choice).toEqual({ type: 'any' });

    messages.push({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'toolu_01', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
    });
    messages.push({ role: 'tool', tool_call_id: 'toolu_01', content: '18 C, sunny' });
    const answer = await client.chat.completions.create({ model: 'claude-test', messages, tools: [weatherTool] });
    expect(answer.choices[0]!.message.content).toBe('It is sunny in Paris.');
    expect(sent().messages.slice(1)).toEqual([
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: { city: 'Paris' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: '18 C, sunny' }] },
    ]);
  });

  test('tools, not streamed: tool_calls with JSON arguments and finish_reason tool_calls', async () => {
    const answer = await client.chat.completions.create({
      model: 'claude-test',
      messages: [{ role: 'user', content: 'Weather?' }],
      tools: [weatherTool],
    });
    const message = answer.choices[0]!.message;
    expect(message.tool_calls).toEqual([
      { id: 'toolu_01', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
    ]);
    expect(message.content).toBe('Let me check.');
    expect(answer.choices[0]!.finish_reason).toBe('tool_calls');
  });

  test('images: a data URL becomes a base64 image block, an https URL a url image block', async () => {
    await client.chat.completions.create({
      model: 'claude-test',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Compare' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
          ],
        },
      ],
    });
    expect(sent().messages[0]!.content).toEqual([
      { type: 'text', text: 'Compare' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
      { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
    ]);
  });

  test('JSON schema: sent as the JSON output format, answered as JSON content', async () => {
    const schema = { type: 'object', properties: { answer: { type: 'number' } }, required: ['answer'] };
    const answer = await client.chat.completions.create({
      model: 'claude-test',
      messages: [{ role: 'user', content: 'The answer?' }],
      response_format: { type: 'json_schema', json_schema: { name: 'answer', schema } },
    });
    expect(JSON.parse(answer.choices[0]!.message.content!)).toEqual({ answer: 42 });
    expect(sent().output_config).toEqual({ format: { type: 'json_schema', schema } });
  });

  test('thinking: reasoning_effort is a thinking budget, thinking comes back as reasoning_content, JSON and streamed', async () => {
    const body = { model: 'claude-test', messages: [{ role: 'user' as const, content: 'Hi' }], reasoning_effort: 'high' as const };
    const answer = await client.chat.completions.create(body);
    const message = answer.choices[0]!.message as OpenAI.ChatCompletionMessage & { reasoning_content?: string };
    expect(message.reasoning_content).toBe('Let me think. The user wants a greeting.');
    expect(message.content).toBe('Hello from Claude.');
    expect(sent().thinking).toEqual({ type: 'enabled', budget_tokens: 4095 });

    let reasoning = '';
    let text = '';
    for await (const chunk of await client.chat.completions.create({ ...body, max_completion_tokens: 20_000, stream: true })) {
      const delta = chunk.choices[0]?.delta as { content?: string; reasoning_content?: string } | undefined;
      reasoning += delta?.reasoning_content ?? '';
      text += delta?.content ?? '';
    }
    expect(reasoning).toBe('Let me think. The user wants a greeting.');
    expect(text).toBe('Hello from Claude.');
    expect(sent().thinking).toEqual({ type: 'enabled', budget_tokens: 16_384 });
  });

  test('thinking with tools: the thinking signature comes back in thinking_blocks and goes upstream again with the tool result', async () => {
    type Sealed = OpenAI.ChatCompletionMessage & { reasoning_content?: string; thinking_blocks?: unknown[] };
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
    const first = await client.chat.completions.create({ model: 'claude-test', messages, tools: [weatherTool], reasoning_effort: 'low' });
    const message = first.choices[0]!.message as Sealed;
    expect(message.thinking_blocks).toEqual([{ type: 'thinking', signature: 'sig' }]);

    const seals: unknown[] = [];
    for await (const chunk of await client.chat.completions.create({
      model: 'claude-test',
      messages,
      tools: [weatherTool],
      reasoning_effort: 'low',
      stream: true,
    }))
      seals.push(...((chunk.choices[0]?.delta as { thinking_blocks?: unknown[] } | undefined)?.thinking_blocks ?? []));
    expect(seals).toEqual([{ type: 'thinking', signature: 'sig' }]);

    // The assistant message goes back as the SDK returned it, with the tool's result.
    messages.push(message as OpenAI.ChatCompletionAssistantMessageParam);
    messages.push({ role: 'tool', tool_call_id: 'toolu_01', content: '18 C' });
    const answer = await client.chat.completions.create({ model: 'claude-test', messages, tools: [weatherTool], reasoning_effort: 'low' });
    expect(answer.choices[0]!.message.content).toBe('It is sunny in Paris.');
    expect(sent().messages[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'Let me think. The user wants a greeting.', signature: 'sig' },
        { type: 'text', text: 'Let me check.' },
        { type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: { city: 'Paris' } },
      ],
    });
  });

  test('thinking with strip_thinking_response: the content holds none of it; disable_thinking turns it off upstream', async () => {
    const stripped = await client.chat.completions.create({
      model: 'claude-test',
      messages: [{ role: 'user', content: 'Hi' }],
      reasoning_effort: 'medium',
      // @ts-expect-error svc's own parameters
      svc_parameters: { strip_thinking_response: true },
    });
    expect(stripped.choices[0]!.message.content).toBe('Hello from Claude.');
    expect(stripped.choices[0]!.message.content).not.toContain('think');

    const off = await client.chat.completions.create({
      model: 'claude-test:disable_thinking=true',
      messages: [{ role: 'user', content: 'Hi' }],
      reasoning_effort: 'high',
    });
    expect(sent().thinking).toEqual({ type: 'disabled' });
    expect((off.choices[0]!.message as { reasoning_content?: string }).reasoning_content).toBeUndefined();
  });

  test('cache markers reach the upstream; a cache write, then a cache read, each billed at its own price in /billing/usage', async () => {
    up.clearCache();
    const messages: OpenAI.ChatCompletionMessageParam[] = [
      {
        role: 'system',
        content: [
          {
            type: 'text',
            text: 'A long shared handbook. '.repeat(20),
            cache_control: { type: 'ephemeral' },
          } as OpenAI.ChatCompletionContentPartText,
        ],
      },
      { role: 'user', content: 'Question one' },
    ];
    const first = await client.chat.completions.create({ model: 'claude-test', messages }).withResponse();
    const system = sent().system as { cache_control?: unknown }[];
    expect(system[system.length - 1]!.cache_control).toEqual({ type: 'ephemeral' });
    expect(first.data.usage).toMatchObject({
      prompt_tokens: INPUT_TOKENS + CACHED_PREFIX_TOKENS,
      prompt_tokens_details: { cached_tokens: 0, cache_creation_input_tokens: CACHED_PREFIX_TOKENS },
    });
    const second = await client.chat.completions
      .create({ model: 'claude-test', messages, stream: true, stream_options: { include_usage: true } })
      .withResponse();
    for await (const _ of second.data);

    const writes = await usageLinesOf(t, first.response.headers.get('cf-ray')!);
    expect(writes.map((l) => [l.sku, Math.round(l.amount * 1e6)]).sort()).toEqual([
      ['claude-test-llm-cache-write-mtoken', 3750], // 1,000 tokens at 3.75 USD / M
      ['claude-test-llm-input-mtoken', 36], // 12 at 3
      ['claude-test-llm-output-mtoken', 210], // 7 at 30
    ]);
    expect(first.data).toMatchObject({ cost: { usd: 0.003996 } });
    const reads = await usageLinesOf(t, second.response.headers.get('cf-ray')!);
    expect(reads.map((l) => [l.sku, Math.round(l.amount * 1e6)]).sort()).toEqual([
      ['claude-test-llm-cache-input-mtoken', 300], // 1,000 tokens at 0.30 USD / M
      ['claude-test-llm-input-mtoken', 36],
      ['claude-test-llm-output-mtoken', 210],
    ]);
  });
});
