import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import OpenAI from 'openai';
import { zodResponseFormat } from 'openai/helpers/zod';
import { z } from 'zod';
import type { TestApp } from '../helpers/app';
import { schemaErrors, startListeningSimulator, WEATHER_PARAMETERS } from './helpers';

let t: TestApp;
let client: OpenAI;
let close: () => Promise<void>;
beforeAll(async () => {
  const s = await startListeningSimulator();
  [t, close] = [s.t, s.close];
  client = new OpenAI({ baseURL: s.baseURL, apiKey: t.adminKey, maxRetries: 0 });
});
afterAll(() => close());

const weatherTool = (calls: unknown[]) => ({
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Weather forecast for a city',
    parameters: WEATHER_PARAMETERS as unknown as Record<string, unknown>,
    parse: JSON.parse,
    function: (args: unknown) => {
      calls.push(args);
      return { temperature: 21, sky: 'clear' };
    },
  },
});

describe('openai SDK runTools against the default simulator', () => {
  for (const stream of [false, true])
    test(`${stream ? 'streaming' : 'non-streaming'}: a valid tool call, the tool runs, then a final answer from its result`, async () => {
      const calls: unknown[] = [];
      const body = {
        model: 'llama-3.3-70b',
        messages: [{ role: 'user' as const, content: 'What is the weather in Lisbon this week?' }],
        tools: [weatherTool(calls)],
      };
      const runner = stream ? client.chat.completions.runTools({ ...body, stream: true }) : client.chat.completions.runTools(body);
      const final = await runner.finalContent();
      expect(calls).toHaveLength(1);
      expect(schemaErrors(WEATHER_PARAMETERS, calls[0])).toEqual([]);
      expect(final).toContain('get_weather returned {"temperature":21,"sky":"clear"}');
      const messages = runner.messages;
      expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    });

  test('parallel tool calls: both tools run in one round, and the answer quotes both results', async () => {
    const calls: unknown[] = [];
    const clock = {
      type: 'function' as const,
      function: {
        name: 'get_time',
        description: 'Current time in a city',
        parameters: { type: 'object', properties: {} },
        function: () => '12:00',
      },
    };
    const runner = client.chat.completions.runTools({
      model: 'llama-3.3-70b',
      messages: [{ role: 'user', content: 'Weather and time in Lisbon?' }],
      tools: [weatherTool(calls), clock],
    });
    const final = await runner.finalContent();
    expect(calls).toHaveLength(1);
    expect(final).toContain('get_weather returned {"temperature":21,"sky":"clear"}; get_time returned 12:00');
    expect(runner.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'assistant']);
  });

  test('tool_choice: none answers in text, a named function is called even when another matches better', async () => {
    const none = await client.chat.completions.create({
      model: 'llama-3.3-70b',
      messages: [{ role: 'user', content: 'weather in Lisbon?' }],
      tools: [weatherTool([])],
      tool_choice: 'none',
    });
    expect(none.choices[0]!.finish_reason).toBe('stop');
    expect(none.choices[0]!.message.tool_calls).toBeUndefined();
    const named = await client.chat.completions.create({
      model: 'llama-3.3-70b',
      messages: [{ role: 'user', content: 'weather in Lisbon?' }],
      tools: [weatherTool([]), { type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: {} } } }],
      tool_choice: { type: 'function', function: { name: 'get_time' } },
    });
    expect(named.choices[0]!.finish_reason).toBe('tool_calls');
    expect(named.choices[0]!.message.tool_calls?.[0]).toMatchObject({ type: 'function', function: { name: 'get_time', arguments: '{}' } });
  });

  test('a model whose catalog does not declare function calling ignores tools, and the catalog says so', async () => {
    const res = await client.chat.completions.create({
      model: 'venice-uncensored',
      messages: [{ role: 'user', content: 'weather in Lisbon?' }],
      tools: [weatherTool([])],
    });
    expect(res.choices[0]!.message.tool_calls).toBeUndefined();
    const models = (await (await t.request('/models')).json()).data as {
      id: string;
      model_spec: { capabilities: Record<string, unknown> };
    }[];
    const caps = (id: string) => models.find((m) => m.id === id)!.model_spec.capabilities;
    expect(caps('venice-uncensored').supportsFunctionCalling).toBe(false);
    expect(caps('llama-3.3-70b')).toMatchObject({ supportsFunctionCalling: true, supportsResponseSchema: true, supportsLogProbs: true });
  });
});

describe('openai SDK response_format, n, stop and logprobs', () => {
  test('json_object: the content parses as a JSON object', async () => {
    const res = await client.chat.completions.create({
      model: 'qwen3-235b-a22b-thinking-2507',
      messages: [{ role: 'user', content: 'Reply in JSON' }],
      response_format: { type: 'json_object' },
    });
    const parsed = JSON.parse(res.choices[0]!.message.content!);
    expect(parsed).toBeObject();
    expect(parsed.simulated).toBe(true);
  });

  test('json_schema through chat.completions.parse with a zod schema: the SDK parses and validates the instance', async () => {
    const Recipe = z.object({
      title: z.string().min(3),
      servings: z.number().int().min(1).max(12),
      steps: z.array(z.object({ order: z.number().int(), text: z.string() })).min(1),
      vegan: z.boolean(),
    });
    const res = await client.chat.completions.parse({
      model: 'mistral-31-24b',
      messages: [{ role: 'user', content: 'A soup recipe' }],
      response_format: zodResponseFormat(Recipe, 'recipe'),
    });
    const parsed = res.choices[0]!.message.parsed!;
    expect(Recipe.parse(parsed)).toEqual(parsed);
    expect(parsed.steps.length).toBeGreaterThanOrEqual(1);
  });

  test('n: 3 non-streaming choices, and 2 streamed choices assembled by the SDK', async () => {
    const res = await client.chat.completions.create({ model: 'qwen3-4b', messages: [{ role: 'user', content: 'hi' }], n: 3 });
    expect(res.choices.map((c) => c.index)).toEqual([0, 1, 2]);
    expect(res.usage!.completion_tokens).toBeGreaterThan(0);
    const perChoice = res.usage!.completion_tokens / 3;
    expect(Number.isInteger(perChoice)).toBe(true);
    const stream = client.chat.completions.stream({ model: 'llama-3.3-70b', messages: [{ role: 'user', content: 'hi' }], n: 2 });
    const done = await stream.finalChatCompletion();
    expect(done.choices).toHaveLength(2);
    for (const c of done.choices) expect(c.message.content).toContain('svc simulator');
  });

  test('n with a stream transform (strip_thinking_response on a thinking model): each choice is stripped on its own', async () => {
    const done = await client.chat.completions
      .stream({
        model: 'qwen3-4b:strip_thinking_response=true',
        messages: [{ role: 'user', content: 'hi' }],
        n: 2,
      })
      .finalChatCompletion();
    expect(done.choices).toHaveLength(2);
    for (const c of done.choices) {
      expect(c.message.content).toStartWith('This is the svc simulator');
      expect(c.message.content).not.toContain('think>');
    }
  });

  test('stop: the answer ends before the first stop sequence, in JSON and in a stream', async () => {
    const plain = await client.chat.completions.create({ model: 'llama-3.3-70b', messages: [{ role: 'user', content: 'hi' }] });
    expect(plain.choices[0]!.message.content).toContain('canned text');
    const res = await client.chat.completions.create({
      model: 'llama-3.3-70b',
      messages: [{ role: 'user', content: 'hi' }],
      stop: ['canned', 'weights'],
    });
    expect(res.choices[0]!.message.content).toBe('This is the svc simulator: no model ');
    expect(res.choices[0]!.finish_reason).toBe('stop');
    const stream = client.chat.completions.stream({ model: 'llama-3.3-70b', messages: [{ role: 'user', content: 'hi' }], stop: 'canned' });
    expect((await stream.finalChatCompletion()).choices[0]!.message.content).toBe('This is the svc simulator: no model weights, ');
  });

  test('logprobs: per token on a model that declares them (top_logprobs honoured), null on one that does not', async () => {
    const res = await client.chat.completions.create({
      model: 'llama-3.3-70b',
      messages: [{ role: 'user', content: 'hi' }],
      logprobs: true,
      top_logprobs: 3,
    });
    const content = res.choices[0]!.logprobs!.content!;
    expect(content.map((l) => l.token).join('')).toBe(res.choices[0]!.message.content!);
    for (const l of content) {
      expect(l.logprob).toBeLessThanOrEqual(0);
      expect(l.top_logprobs).toHaveLength(3);
      expect(l.top_logprobs[0]!.token).toBe(l.token);
      expect(l.top_logprobs[1]!.logprob).toBeLessThan(l.logprob);
      expect(Buffer.from(l.bytes!).toString()).toBe(l.token);
    }
    const streamed = await client.chat.completions
      .stream({ model: 'llama-3.3-70b', messages: [{ role: 'user', content: 'hi' }], logprobs: true })
      .finalChatCompletion();
    expect(streamed.choices[0]!.logprobs!.content!.map((l) => l.token)).toEqual(content.map((l) => l.token));
    const without = await client.chat.completions.create({
      model: 'qwen3-235b-a22b-thinking-2507',
      messages: [{ role: 'user', content: 'hi' }],
      logprobs: true,
    });
    expect(without.choices[0]!.logprobs).toBeNull();
  });
});
