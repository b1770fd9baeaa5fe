import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { Agent, run, setDefaultOpenAIClient, setOpenAIAPI, setTracingDisabled, tool } from '@openai/agents';
import OpenAI from 'openai';
import { z } from 'zod';
import { startTestApp, type TestApp } from '../helpers/app';

// The OpenAI Agents SDK against svc unchanged: its default client pointed at svc, the
// Responses API, and turns chained by previous_response_id.
let t: TestApp;
let baseURL: string;
/** The bodies the agent's client sent to POST /responses, in order. */
const sent: Record<string, unknown>[] = [];

beforeAll(async () => {
  t = await startTestApp({
    config: {
      providers: [{ id: 'sim', kind: 'simulator', options: { latencyMs: 0, tokensPerSecond: 0 } }],
      models: [
        {
          id: 'sim-agent',
          type: 'text',
          routes: [{ provider: 'sim' }],
          pricing: { input: '1', output: '2' },
          capabilities: { supportsFunctionCalling: true },
        },
      ],
    },
  });
  t.app.listen({ port: 0, hostname: '127.0.0.1' });
  baseURL = `http://127.0.0.1:${t.app.server?.port}/api/v1`;
  const recording = (async (input: RequestInfo | URL, init?: RequestInit) => {
    if (String(input).endsWith('/responses') && typeof init?.body === 'string') sent.push(JSON.parse(init.body));
    return fetch(input, init);
  }) as typeof fetch;
  setDefaultOpenAIClient(new OpenAI({ baseURL, apiKey: t.adminKey, maxRetries: 0, fetch: recording }) as never);
  setOpenAIAPI('responses');
  setTracingDisabled(true);
});
afterAll(async () => {
  await t.app.stop(true);
  await t.close();
});

describe('@openai/agents: a two-tool agent for three turns', () => {
  test('each turn calls its tool and answers from it; the turns chain by previous_response_id and svc holds the whole conversation', async () => {
    const calls: string[] = [];
    const getWeather = tool({
      name: 'get_weather',
      description: 'Weather forecast by city',
      parameters: z.object({ city: z.string() }),
      execute: async ({ city }) => {
        calls.push(`weather ${city}`);
        return `Sunny in ${city}`;
      },
    });
    const getTime = tool({
      name: 'get_time',
      description: 'Local clock time by city',
      parameters: z.object({ city: z.string() }),
      execute: async ({ city }) => {
        calls.push(`time ${city}`);
        return `It is noon in ${city}`;
      },
    });
    const agent = new Agent({ name: 'Helper', instructions: 'Use the tools.', model: 'sim-agent', tools: [getWeather, getTime] });

    let previousResponseId: string | undefined;
    const answers: string[] = [];
    for (const question of ['What is the weather in Porto?', 'And the time in Porto?', 'The weather in Braga?']) {
      const result = await run(agent, question, previousResponseId ? { previousResponseId } : {});
      answers.push(String(result.finalOutput));
      previousResponseId = result.lastResponseId;
    }
    expect(calls).toEqual(['weather Porto', 'time Porto', 'weather Braga']);
    expect(answers[0]).toContain('Sunny in Porto');
    expect(answers[1]).toContain('It is noon in Porto');
    expect(answers[2]).toContain('Sunny in Braga');
    // Two calls a turn (the tool call, then the answer from its output). The first run sends its
    // whole input each time; the later runs send only what is new, continuing the last response.
    expect(sent).toHaveLength(6);
    expect(sent.slice(0, 2).map((body) => body.previous_response_id)).toEqual([undefined, undefined]);
    for (const body of sent.slice(2)) {
      expect(body.previous_response_id).toStartWith('resp_');
      expect(body.input).toHaveLength(1);
    }

    const items = await (await t.request(`/responses/${previousResponseId}/input_items?order=asc&limit=100`)).json();
    const users = items.data
      .filter((i: { role?: string }) => i.role === 'user')
      .map((i: { content: { text: string }[] }) => i.content[0]!.text);
    expect(users).toEqual(['What is the weather in Porto?', 'And the time in Porto?', 'The weather in Braga?']);
    expect(items.data.filter((i: { type: string }) => i.type === 'function_call_output')).toHaveLength(3);
  });
});
