import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { tool as langchainTool } from '@langchain/core/tools';
import { ChatOpenAI } from '@langchain/openai';
import { generateObject, generateText, jsonSchema, stepCountIs, streamText, tool as aiTool } from 'ai';
import { z } from 'zod';
import { schemaErrors, startListeningSimulator, WEATHER_PARAMETERS } from './helpers';

let baseURL: string;
let apiKey: string;
let close: () => Promise<void>;
beforeAll(async () => {
  const s = await startListeningSimulator();
  [baseURL, apiKey, close] = [s.baseURL, s.t.adminKey, s.close];
});
afterAll(() => close());

const Weather = z.object({ city: z.string().min(2), unit: z.enum(['celsius', 'fahrenheit']), days: z.number().int().min(1).max(7) });

describe('LangChain ChatOpenAI against the default simulator', () => {
  const chat = () => new ChatOpenAI({ model: 'llama-3.3-70b', apiKey, configuration: { baseURL }, maxRetries: 0 });

  test('bindTools: a tool call whose args validate, then a final answer from the tool message', async () => {
    const getWeather = langchainTool(async (args) => JSON.stringify({ ...args, temperature: 19 }), {
      name: 'get_weather',
      description: 'Weather forecast for a city',
      schema: Weather,
    });
    const model = chat().bindTools([getWeather]);
    const question = new HumanMessage('What is the weather in Porto?');
    const first = (await model.invoke([question])) as AIMessage;
    expect(first.tool_calls).toHaveLength(1);
    const call = first.tool_calls![0]!;
    expect(call.name).toBe('get_weather');
    expect(Weather.safeParse(call.args).success).toBe(true);
    const result = (await getWeather.invoke(call)) as ToolMessage;
    const final = await model.invoke([question, first, result]);
    expect(final.tool_calls ?? []).toHaveLength(0);
    expect(String(final.content)).toContain('get_weather returned');
  });

  test('withStructuredOutput (json_schema): the instance parses with the zod schema', async () => {
    const out = await chat().withStructuredOutput(Weather, { name: 'weather', method: 'jsonSchema' }).invoke('Weather in Faro as JSON');
    expect(Weather.parse(out)).toEqual(out);
  });

  test('withStructuredOutput (jsonMode, json_object): the prompt shows a JSON Schema or an example, the answer fits it', async () => {
    const withSchema = `Weather in Faro. Answer with a JSON object matching this JSON Schema: ${JSON.stringify(z.toJSONSchema(Weather))}`;
    const fromSchema = await chat().withStructuredOutput(Weather, { method: 'jsonMode' }).invoke(withSchema);
    expect(Weather.parse(fromSchema)).toEqual(fromSchema);
    const withExample = 'Weather in Lagos as JSON, like {"city": "Lagos", "unit": "celsius", "days": 2}';
    const fromExample = await chat().withStructuredOutput(Weather, { method: 'jsonMode' }).invoke(withExample);
    expect(Weather.parse(fromExample)).toEqual(fromExample);
  });

  test('streaming tool call chunks assemble into one valid call', async () => {
    const model = chat().bindTools([{ type: 'function', function: { name: 'get_weather', parameters: WEATHER_PARAMETERS } }]);
    let merged: AIMessage | undefined;
    for await (const chunk of await model.stream('weather in Braga?'))
      merged = merged ? (merged as never as { concat(c: unknown): AIMessage }).concat(chunk) : chunk;
    const call = merged!.tool_calls![0]!;
    expect(call.name).toBe('get_weather');
    expect(schemaErrors(WEATHER_PARAMETERS, call.args)).toEqual([]);
  });
});

describe('Vercel AI SDK (openai-compatible provider) against the default simulator', () => {
  const svc = () => createOpenAICompatible({ name: 'svc', baseURL, apiKey, supportsStructuredOutputs: true });

  for (const streaming of [false, true])
    test(`${streaming ? 'streamText' : 'generateText'} with a tool: the tool runs with valid input, then the model answers`, async () => {
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
      const options = { model: svc()('llama-3.3-70b'), prompt: 'Weather in Coimbra?', tools, stopWhen: stepCountIs(3), maxRetries: 0 };
      const text = streaming ? await streamText(options).text : (await generateText(options)).text;
      expect(inputs).toHaveLength(1);
      expect(schemaErrors(WEATHER_PARAMETERS, inputs[0])).toEqual([]);
      expect(text).toContain('get_weather returned {"temperature":23}');
    });

  test('generateObject: a schema instance', async () => {
    const { object } = await generateObject({ model: svc()('mistral-31-24b'), schema: Weather, prompt: 'Weather in Evora', maxRetries: 0 });
    expect(Weather.parse(object)).toEqual(object);
  });

  test('generateObject without structured outputs (json_object; the schema only in the system text): an instance of it', async () => {
    // The provider then sends no schema, so the caller writes it in the prompt, as for any model without structured outputs.
    const plain = createOpenAICompatible({ name: 'svc', baseURL, apiKey, supportsStructuredOutputs: false });
    const system = `Answer with one JSON object that matches this JSON Schema:\n${JSON.stringify(z.toJSONSchema(Weather), null, 2)}`;
    const { object } = await generateObject({
      model: plain('llama-3.3-70b'),
      schema: Weather,
      system,
      prompt: 'Weather in Evora',
      maxRetries: 0,
    });
    expect(Weather.parse(object)).toEqual(object);
  });
});
