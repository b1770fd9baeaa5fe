import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createOpenAI } from '@ai-sdk/openai';
import { HumanMessage, type AIMessage } from '@langchain/core/messages';
import { ChatOpenAI } from '@langchain/openai';
import { generateObject, generateText, jsonSchema, stepCountIs, streamText, tool as aiTool, type ModelMessage } from 'ai';
import OpenAI from 'openai';
import type { ResponseInputItem, ResponseStreamEvent } from 'openai/resources/responses/responses';
import { z } from 'zod';
import { startUpstream, type FixtureUpstream } from '../fixtures/openai-upstream';
import { startTestApp, type TestApp } from '../helpers/app';
import { fixtureModel, fixtureProvider, recordingMeter } from '../chat/helpers';
import { schemaErrors, WEATHER_PARAMETERS } from '../simulator/helpers';

let up: FixtureUpstream;
let t: TestApp;
let baseURL: string;
const m = recordingMeter();
const SIM_CAPS = { supportsFunctionCalling: true, supportsResponseSchema: true };

beforeAll(async () => {
  up = startUpstream('resp');
  t = await startTestApp({
    meter: m.meter,
    config: {
      providers: [fixtureProvider('up', up.url, 10_000), { id: 'sim', kind: 'simulator', options: { latencyMs: 0, tokensPerSecond: 0 } }],
      models: [
        fixtureModel('fix-resp', ['up']),
        fixtureModel('sim-tools', ['sim'], { capabilities: SIM_CAPS }),
        fixtureModel('sim-think', ['sim'], { capabilities: { ...SIM_CAPS, supportsReasoning: true } }),
      ],
    },
  });
  t.app.listen({ port: 0, hostname: '127.0.0.1' });
  baseURL = `http://127.0.0.1:${t.app.server?.port}/api/v1`;
}, 20_000);
afterAll(async () => {
  await t.app.stop(true);
  await t.close();
  await up.close();
});

const client = () => new OpenAI({ baseURL, apiKey: t.adminKey, maxRetries: 0 });
const lastUpstreamBody = () => up.requests.at(-1)?.body as Record<string, unknown>;
const WEATHER_TOOL = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: WEATHER_PARAMETERS,
  strict: false,
};

/** Runs `fn` and returns how many settlements it caused (each is one ledger line). */
async function settlements(fn: () => Promise<unknown>): Promise<number> {
  const before = m.calls.settled.length;
  await fn();
  for (let i = 0; i < 50 && m.calls.settled.length === before; i++) await Bun.sleep(10);
  return m.calls.settled.length - before;
}

describe('openai SDK: responses.create', () => {
  test('non-streamed: output_text, usage, cost, and the chat request it became', async () => {
    up.set({});
    let res!: OpenAI.Responses.Response;
    const n = await settlements(async () => {
      res = await client().responses.create({
        model: 'fix-resp',
        input: 'Hi',
        instructions: 'Be brief.',
        max_output_tokens: 50,
        temperature: 0.5,
        // svc's own field, passed through by the SDK: no svc system prompt, so the messages are exactly these.
        svc_parameters: { include_svc_system_prompt: false },
      } as OpenAI.Responses.ResponseCreateParamsNonStreaming);
    });
    expect(n).toBe(1);
    expect(res.object).toBe('response');
    expect(res.status).toBe('completed');
    expect(res.model).toBe('fix-resp');
    expect(res.output_text).toBe('Hello from the fixture.');
    expect(res.usage).toMatchObject({ input_tokens: 10, output_tokens: 5, total_tokens: 15, input_tokens_details: { cached_tokens: 0 } });
    expect((res as unknown as { cost: unknown }).cost).toEqual({ usd: 0.001234, diem: 0 });
    expect(lastUpstreamBody()).toMatchObject({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
      ],
      max_completion_tokens: 50,
      temperature: 0.5,
    });
  });

  test('streamed: the typed events in order, with sequence numbers, and usage on response.completed', async () => {
    up.set({ splitBytes: 7 });
    const events: ResponseStreamEvent[] = [];
    const n = await settlements(async () => {
      for await (const e of await client().responses.create({ model: 'fix-resp', input: 'Hi', stream: true })) events.push(e);
    });
    expect(n).toBe(1);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const types = events.map((e) => e.type);
    expect(types.slice(0, 4)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
    ]);
    expect(types.slice(-4)).toEqual([
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const text = events.map((e) => (e.type === 'response.output_text.delta' ? e.delta : '')).join('');
    expect(text).toBe('Hello from the fixture.');
    const done = events.at(-1) as OpenAI.Responses.ResponseCompletedEvent;
    expect(done.response.usage).toMatchObject({ input_tokens: 10, output_tokens: 5 });
    expect(done.response.output_text ?? text).toBe(text);
  });

  test('responses.stream() assembles the final response', async () => {
    up.set({ reasoning: ['Let me ', 'think.'] });
    const stream = client().responses.stream({ model: 'fix-resp', input: 'Hi' });
    const deltas: string[] = [];
    stream.on('response.reasoning_summary_text.delta', (e) => deltas.push(e.delta));
    const final = await stream.finalResponse();
    expect(final.output_text).toBe('Hello from the fixture.');
    expect(deltas.join('')).toBe('Let me think.');
    expect(final.output[0]).toMatchObject({ type: 'reasoning', summary: [{ type: 'summary_text', text: 'Let me think.' }] });
    expect(final.usage?.output_tokens).toBe(5);
  });

  for (const stream of [false, true])
    test(`a function-tool round trip through a fixture upstream (${stream ? 'streamed' : 'not streamed'})`, async () => {
      up.set({ toolCalls: [{ name: 'get_weather', arguments: '{"city":"Paris"}' }] });
      const input: ResponseInputItem[] = [{ role: 'user', content: 'Weather in Paris?' }];
      const first = stream
        ? await client()
            .responses.stream({ model: 'fix-resp', input, tools: [WEATHER_TOOL] })
            .finalResponse()
        : await client().responses.create({ model: 'fix-resp', input, tools: [WEATHER_TOOL], tool_choice: 'auto' });
      const call = first.output.find((o) => o.type === 'function_call') as OpenAI.Responses.ResponseFunctionToolCall;
      expect(call).toMatchObject({ name: 'get_weather', arguments: '{"city":"Paris"}', call_id: 'call_resp_0', status: 'completed' });
      expect(lastUpstreamBody().tools).toEqual([
        {
          type: 'function',
          function: { name: 'get_weather', description: 'Weather for a city', parameters: WEATHER_PARAMETERS, strict: false },
        },
      ]);

      up.set({ tokens: ['It is ', 'sunny.'] });
      const second = await client().responses.create({
        model: 'fix-resp',
        input: [...input, call, { type: 'function_call_output', call_id: call.call_id, output: '{"temperature":21}' }],
        tools: [WEATHER_TOOL],
      });
      expect(second.output_text).toBe('It is sunny.');
      // The last three messages (a service prompt, where the model includes one, comes before them).
      expect((lastUpstreamBody().messages as unknown[]).slice(-3)).toEqual([
        { role: 'user', content: 'Weather in Paris?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_resp_0', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_resp_0', content: '{"temperature":21}' },
      ]);
    });

  test('a function-tool round trip through the simulator, streamed', async () => {
    const input: ResponseInputItem[] = [{ role: 'user', content: 'What is the weather in Lisbon?' }];
    const first = await client()
      .responses.stream({ model: 'sim-tools', input, tools: [WEATHER_TOOL] })
      .finalResponse();
    const call = first.output.find((o) => o.type === 'function_call') as OpenAI.Responses.ResponseFunctionToolCall;
    expect(call.name).toBe('get_weather');
    expect(schemaErrors(WEATHER_PARAMETERS, JSON.parse(call.arguments))).toEqual([]);
    const second = await client()
      .responses.stream({
        model: 'sim-tools',
        input: [
          ...input,
          ...first.output,
          { type: 'function_call_output', call_id: call.call_id, output: '{"temperature":18}' },
        ] as ResponseInputItem[],
        tools: [WEATHER_TOOL],
      })
      .finalResponse();
    expect(second.output_text).toContain('answering from the tool results');
    expect(second.output_text).toContain('{"temperature":18}');
  });

  test('text.format json_schema through the simulator: the text is an instance of the schema', async () => {
    const res = await client().responses.create({
      model: 'sim-tools',
      input: 'Weather in Faro as JSON',
      text: { format: { type: 'json_schema', name: 'weather', schema: WEATHER_PARAMETERS as never, strict: true } },
    });
    expect(schemaErrors(WEATHER_PARAMETERS, JSON.parse(res.output_text))).toEqual([]);
    expect(res.text?.format).toMatchObject({ type: 'json_schema', name: 'weather' });
  });

  test('the simulator thinks in a reasoning item; reasoning effort none turns it off', async () => {
    const thinking = await client().responses.create({ model: 'sim-think', input: 'Why?' });
    expect(thinking.output.map((o) => o.type)).toEqual(['reasoning', 'message']);
    expect(thinking.output_text).not.toContain('<think>');
    expect(thinking.usage?.output_tokens_details.reasoning_tokens).toBeGreaterThan(0);
    const plain = await client().responses.create({ model: 'sim-think', input: 'Why?', reasoning: { effort: 'none' } });
    expect(plain.output.map((o) => o.type)).toEqual(['message']);
  });
});

describe('Vercel AI SDK: @ai-sdk/openai default provider (the Responses API)', () => {
  /** The bodies the AI SDK sent to svc, newest last. */
  const sentTo: unknown[] = [];
  const recording = (async (input: RequestInfo | URL, init?: RequestInit) => {
    if (typeof init?.body === 'string') sentTo.push(JSON.parse(init.body));
    return fetch(input, init);
  }) as typeof fetch;
  const openai = () => createOpenAI({ baseURL, apiKey: t.adminKey, fetch: recording });

  test('generateText returns text and usage, one settlement', async () => {
    up.set({});
    let result!: Awaited<ReturnType<typeof generateText>>;
    expect(await settlements(async () => (result = await generateText({ model: openai()('fix-resp'), prompt: 'Hi', maxRetries: 0 })))).toBe(
      1,
    );
    expect(result.text).toBe('Hello from the fixture.');
    expect(result.usage).toMatchObject({ inputTokens: 10, outputTokens: 5, totalTokens: 15 });
    expect(up.requests.at(-1)?.path).toBe('/v1/chat/completions');
  });

  test('streamText streams the text and reports usage', async () => {
    up.set({ splitBytes: 5 });
    const result = streamText({ model: openai().responses('fix-resp'), prompt: 'Hi', maxRetries: 0 });
    let text = '';
    for await (const delta of result.textStream) text += delta;
    expect(text).toBe('Hello from the fixture.');
    expect(await result.usage).toMatchObject({ inputTokens: 10, outputTokens: 5 });
  });

  test('a multi-turn chat with the defaults (store: true, earlier answers sent as item references): the upstream sees every turn', async () => {
    up.set({});
    const messages: ModelMessage[] = [];
    for (const [turn, said] of ['Hi', 'How are you?', 'Bye'].entries()) {
      messages.push({ role: 'user', content: said });
      const sentBefore = up.requests.length;
      const result = await generateText({ model: openai()('fix-resp'), system: 'Be brief.', messages, maxRetries: 0 });
      expect(result.text).toBe('Hello from the fixture.');
      messages.push(...result.response.messages);
      expect(up.requests.length).toBe(sentBefore + 1);
      const upstream = (lastUpstreamBody().messages as { role: string; content: unknown }[]).filter((m) => m.role !== 'system');
      expect(upstream.map((m) => m.role)).toEqual(Array.from({ length: 2 * turn + 1 }, (_, i) => (i % 2 ? 'assistant' : 'user')));
      expect(upstream.filter((m) => m.role === 'assistant').every((m) => m.content === 'Hello from the fixture.')).toBe(true);
    }
    // The AI SDK did send its earlier answers by reference: svc resolved them from the stored responses.
    expect(JSON.stringify(sentTo.at(-1))).toContain('item_reference');
  });

  for (const streaming of [false, true])
    test(`${streaming ? 'streamText' : 'generateText'} with a tool over several steps through the simulator`, async () => {
      const inputs: unknown[] = [];
      const tools = {
        get_weather: aiTool({
          description: 'Weather forecast for a city',
          inputSchema: jsonSchema<Record<string, unknown>>(WEATHER_PARAMETERS as never),
          execute: async (input) => {
            inputs.push(input);
            return { temperature: 23 };
          },
        }),
      };
      const options = { model: openai()('sim-tools'), prompt: 'Weather in Coimbra?', tools, stopWhen: stepCountIs(3), maxRetries: 0 };
      const result = streaming ? streamText(options) : await generateText(options);
      const text = await result.text;
      expect(inputs).toHaveLength(1);
      expect(schemaErrors(WEATHER_PARAMETERS, inputs[0])).toEqual([]);
      expect(text).toContain('answering from the tool results');
      expect(await result.steps).toHaveLength(2);
    });

  test('generateObject: an instance of the zod schema', async () => {
    const Weather = z.object({ city: z.string().min(2), unit: z.enum(['celsius', 'fahrenheit']), days: z.number().int().min(1).max(7) });
    const { object } = await generateObject({ model: openai()('sim-tools'), schema: Weather, prompt: 'Weather in Evora', maxRetries: 0 });
    expect(Weather.parse(object)).toEqual(object);
  });
});

describe('LangChain ChatOpenAI with useResponsesApi', () => {
  const chat = () =>
    new ChatOpenAI({ model: 'fix-resp', apiKey: t.adminKey, configuration: { baseURL }, maxRetries: 0, useResponsesApi: true });

  test('invoke and stream return the text', async () => {
    up.set({});
    const answer = (await chat().invoke([new HumanMessage('Hi')])) as AIMessage;
    expect(answer.text).toBe('Hello from the fixture.');
    let streamed = '';
    for await (const chunk of await chat().stream('Hi')) streamed += chunk.text;
    expect(streamed).toBe('Hello from the fixture.');
  });

  test('bindTools: the tool call comes back with its arguments', async () => {
    up.set({ toolCalls: [{ name: 'get_weather', arguments: '{"city":"Porto"}' }] });
    const model = chat().bindTools([{ type: 'function', function: { name: 'get_weather', parameters: WEATHER_PARAMETERS } }]);
    const answer = (await model.invoke('Weather in Porto?')) as AIMessage;
    expect(answer.tool_calls?.[0]).toMatchObject({ name: 'get_weather', args: { city: 'Porto' } });
    up.set({});
  });
});

describe('client disconnect', () => {
  test('leaving mid-stream aborts the upstream and settles once, for what was produced', async () => {
    up.set({ chunkDelayMs: 100, tokens: Array.from({ length: 50 }, (_, i) => `t${i} `) });
    const before = m.calls.settled.length;
    const upstreamAborted = up.nextAbort();
    const controller = new AbortController();
    const res = await fetch(`${baseURL}/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'fix-resp', input: 'Hi', stream: true }),
      signal: controller.signal,
    });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    let seen = '';
    while (!seen.includes('response.output_text.delta')) seen += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    await upstreamAborted;
    for (let i = 0; i < 100 && m.calls.settled.length === before; i++) await Bun.sleep(10);
    await Bun.sleep(50);
    expect(m.calls.settled.length - before).toBe(1);
    expect(m.calls.settled.at(-1)!.completionTokens).toBeGreaterThan(0);
    expect(m.calls.settled.at(-1)!.completionTokens).toBeLessThan(50);
    up.set({});
  });
});
