import { describe, expect, test } from 'bun:test';
import { cutAtStop, simulateChat, splitTokens } from '../../providers/simulator-chat/answer';
import type { UpstreamChatRequest } from '../../src/stream/wire';
import { schemaErrors, WEATHER_PARAMETERS } from './helpers';

const ask = (extra: Partial<UpstreamChatRequest> = {}, content = 'weather in Lisbon'): UpstreamChatRequest => ({
  model: 'm',
  messages: [{ role: 'user', content }],
  ...extra,
});
const fc = { think: false, capabilities: { supportsFunctionCalling: true, supportsLogProbs: true }, promptTokens: 7 };
const weather = { type: 'function', function: { name: 'get_weather', description: 'weather for a city', parameters: WEATHER_PARAMETERS } };
const clock = { type: 'function', function: { name: 'get_time', description: 'current time', parameters: { type: 'object' } } };

describe('text helpers', () => {
  test('splitTokens: joined tokens are the text again, long runs (JSON) are cut in pieces', () => {
    for (const text of ['', 'a b  c\n\nd', '{"answer":"long json without spaces"}', '  lead and trail  ', 'é ü 漢字 😀'])
      expect(splitTokens(text).join('')).toBe(text);
    expect(Math.max(...splitTokens('{"aaaaaaaaaaaaaaaaaaaaaa":1}').map((t) => t.length))).toBeLessThanOrEqual(8);
  });

  test('cutAtStop: the earliest of several sequences wins; empty and non-string sequences are ignored', () => {
    expect(cutAtStop('one two three', ['three', 'two'])).toEqual({ text: 'one ', stopped: true });
    expect(cutAtStop('one two', 'zzz')).toEqual({ text: 'one two', stopped: false });
    expect(cutAtStop('one two', ['', 5, null])).toEqual({ text: 'one two', stopped: false });
    expect(cutAtStop('one two', null)).toEqual({ text: 'one two', stopped: false });
  });
});

describe('simulateChat', () => {
  test('picks the tool whose words match the message; arguments validate against its schema', () => {
    const answer = simulateChat(ask({ tools: [clock, weather] }), fc);
    const call = answer.choices[0]!.toolCalls[0]!;
    expect(call.function.name).toBe('get_weather');
    expect(schemaErrors(WEATHER_PARAMETERS, JSON.parse(call.function.arguments))).toEqual([]);
    expect(JSON.parse(call.function.arguments).city).toBe('Lisbon');
    expect(answer.choices[0]!.finishReason).toBe('tool_calls');
    expect(answer.usage.completion_tokens).toBeGreaterThan(0);
  });

  test('every matching tool is called at once (distinct ids), one with parallel_tool_calls false', () => {
    const both = simulateChat(ask({ tools: [clock, weather] }, 'weather and current time in Lisbon'), fc).choices[0]!.toolCalls;
    // Best match first: get_time shares two words (current, time), get_weather one.
    expect(both.map((c) => c.function.name)).toEqual(['get_time', 'get_weather']);
    expect(new Set(both.map((c) => c.id)).size).toBe(2);
    const one = simulateChat(ask({ tools: [clock, weather], parallel_tool_calls: false }, 'weather and current time in Lisbon'), fc);
    expect(one.choices[0]!.toolCalls.map((c) => c.function.name)).toEqual(['get_time']);
  });

  test('the same request gets the same answer; n choices get different samples', () => {
    const req = ask({ tools: [weather], n: 3 });
    expect(simulateChat(req, fc)).toEqual(simulateChat(req, fc));
    const args = simulateChat(req, fc).choices.map((c) => c.toolCalls[0]!.function.arguments);
    expect(new Set(args).size).toBe(3);
  });

  test("tool_choice 'required' calls even after a tool result; auto answers in text then", () => {
    const afterResult: UpstreamChatRequest = {
      model: 'm',
      tools: [weather],
      messages: [
        { role: 'user', content: 'weather?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: '{"t":1}' },
      ],
    };
    const auto = simulateChat(afterResult, fc).choices[0]!;
    expect(auto.toolCalls).toEqual([]);
    expect(auto.tokens.join('')).toContain('get_weather returned {"t":1}');
    expect(simulateChat({ ...afterResult, tool_choice: 'required' }, fc).choices[0]!.toolCalls).toHaveLength(1);
  });

  test('a model without supportsFunctionCalling, supportsLogProbs or supportsResponseSchema ignores tools, logprobs and json_schema', () => {
    const json_schema = { name: 's', schema: { type: 'object', properties: { a: { type: 'integer' } }, required: ['a'] } };
    const req = ask({ tools: [weather], logprobs: true, response_format: { type: 'json_schema', json_schema } });
    const c = simulateChat(req, { ...fc, capabilities: {} }).choices[0]!;
    expect(c.toolCalls).toEqual([]);
    expect(c.logprobs).toBeNull();
    expect(c.tokens.join('')).toStartWith('This is the svc simulator');
    const withSchemas = simulateChat({ ...req, tools: [] }, { ...fc, capabilities: { supportsResponseSchema: true } });
    expect(JSON.parse(withSchemas.choices[0]!.tokens.join('')).a).toBeInteger();
  });

  test('max_tokens cuts with finish_reason length and counts the think block as reasoning', () => {
    const c = simulateChat(ask({ max_tokens: 5 }), { ...fc, think: true }).choices[0]!;
    expect(c.tokens).toHaveLength(5);
    expect(c.finishReason).toBe('length');
    expect(c.reasoningTokens).toBe(5);
    expect(c.tokens[0]).toStartWith('<think>');
  });

  test('JSON answers parse, with no think block, even on a thinking model', () => {
    const asObject = simulateChat(ask({ response_format: { type: 'json_object' } }), { ...fc, think: true });
    expect(JSON.parse(asObject.choices[0]!.tokens.join('')).simulated).toBe(true);
    const schema = {
      type: 'object',
      properties: { n: { type: 'integer', minimum: 3, maximum: 4 } },
      required: ['n'],
      additionalProperties: false,
    };
    const asSchema = simulateChat(ask({ response_format: { type: 'json_schema', json_schema: { name: 's', schema } } }), {
      ...fc,
      think: true,
      capabilities: { supportsResponseSchema: true },
    });
    expect(schemaErrors(schema, JSON.parse(asSchema.choices[0]!.tokens.join('')))).toEqual([]);
  });

  test('usage: the prompt estimate given, completion tokens summed over choices', () => {
    const answer = simulateChat(ask({ n: 2 }), fc);
    const perChoice = answer.choices.map((c) => c.tokens.length);
    expect(answer.usage).toMatchObject({
      prompt_tokens: 7,
      completion_tokens: perChoice[0]! + perChoice[1]!,
      total_tokens: 7 + perChoice[0]! + perChoice[1]!,
    });
  });
});

describe('names from the message', () => {
  test('only a plain string parameter that fits takes the name; the first word of the message is not a name', () => {
    const params = {
      type: 'object',
      properties: { code: { type: 'string', pattern: '^[A-Z]{3}$' }, short: { type: 'string', maxLength: 3 }, place: { type: 'string' } },
      required: ['code', 'short', 'place'],
    };
    const tool = { type: 'function', function: { name: 'lookup', parameters: params } };
    const args = JSON.parse(simulateChat(ask({ tools: [tool] }, 'Where is Porto?'), fc).choices[0]!.toolCalls[0]!.function.arguments);
    expect(args.place).toBe('Porto');
    expect(args.short).not.toBe('Porto');
    expect(schemaErrors(params, args)).toEqual([]);
  });
});

describe('media parts', () => {
  test('the answer counts the images and audio of the last user message', () => {
    const req: UpstreamChatRequest = {
      model: 'm',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is this?' },
            { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
            { type: 'image_url', image_url: { url: 'https://example.com/b.png' } },
            { type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } },
          ],
        },
      ],
    };
    const text = simulateChat(req, fc).choices[0]!.tokens.join('');
    expect(text).toContain('You said: "what is this?". I received 2 images and 1 audio clip, but a simulator cannot look at media.');
  });
});

describe('json_object: the shape the prompt shows', () => {
  const asJson = (messages: UpstreamChatRequest['messages']) =>
    JSON.parse(simulateChat({ model: 'm', messages, response_format: { type: 'json_object' } }, fc).choices[0]!.tokens.join(''));

  test('a JSON Schema in the system text, after prose braces and before the question: an instance of it', () => {
    const schema = {
      type: 'object',
      properties: { n: { type: 'integer', minimum: 3, maximum: 4 }, tag: { enum: ['a'] } },
      required: ['n', 'tag'],
    };
    const out = asJson([
      { role: 'system', content: `Fill {the blanks}. Schema: ${JSON.stringify(schema)}` },
      { role: 'user', content: 'go' },
    ]);
    expect(schemaErrors(schema, out)).toEqual([]);
  });

  test('an example object (nested, with a brace in a string): an object of its shape', () => {
    const out = asJson([{ role: 'user', content: 'Reply like {"name": "a}b", "tags": ["x"], "at": {"lat": 1.5}} please' }]);
    expect(out).toMatchObject({ name: 'a}b', at: { lat: 1.5 } });
    expect(out.tags.length).toBeGreaterThan(0);
    expect(out.tags.every((tag: unknown) => tag === 'x')).toBe(true);
  });

  test('no schema or example: the plain object', () => {
    expect(asJson([{ role: 'user', content: 'json please' }]).simulated).toBe(true);
  });
});
