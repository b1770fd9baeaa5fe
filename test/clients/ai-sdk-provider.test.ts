import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { ChatOpenAI } from '@langchain/openai';
import OpenAI from 'openai';
import { zodResponseFormat } from 'openai/helpers/zod';
import { Value } from '@sinclair/typebox/value';
import type { Static, TObject, TProperties } from '@sinclair/typebox';
import { APICallError, embed, generateImage, generateObject, generateText, Output, streamText } from 'ai';
import { z } from 'zod';
import { createSvc, svcOptions, type SvcParameters } from '../../packages/ai-sdk-provider/src';
import { PLUGINS } from '../../plugins';
import { cache } from '../../plugins/cache';
import { characterSlug } from '../../plugins/character_slug';
import { disableThinking } from '../../plugins/disable_thinking';
import { enableWebScraping } from '../../plugins/enable_web_scraping';
import { enableWebSearch } from '../../plugins/enable_web_search';
import { enableXSearch } from '../../plugins/enable_x_search';
import { guardrails } from '../../plugins/guardrails/assign';
import { pii } from '../../plugins/guardrails/pii';
import { includeSvcSystemPrompt } from '../../plugins/include_svc_system_prompt';
import { stripThinkingResponse } from '../../plugins/strip_thinking_response';
import { composeParameters } from '../../src/chat/parameters';
import { defaultImageModels } from '../../src/models/default-image-models';
import { svcParametersSchema } from '../../src/chat/schema';
import { startUpstream, type FixtureUpstream } from '../fixtures/openai-upstream';
import { startTestApp, type TestApp } from '../helpers/app';
import { fixtureModel, fixtureProvider } from '../chat/helpers';
import { listening, resetUpstreams } from './helpers';

// The structuredOutputs: false case warns by design (no schema is sent); the test asserts what is sent instead.
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

let up: FixtureUpstream;
let t: TestApp;
let baseURL: string;
let server: ReturnType<typeof listening>;
/** The JSON bodies the provider sent to svc, newest last. */
const sent: Record<string, unknown>[] = [];
const recordingFetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
  if (typeof init?.body === 'string') sent.push(JSON.parse(init.body));
  return fetch(input, init);
};

beforeAll(async () => {
  up = startUpstream('a');
  t = await startTestApp({
    config: {
      providers: [fixtureProvider('a', up.url), { id: 'sim', kind: 'simulator', options: {} }],
      models: [
        fixtureModel('plain', ['a']),
        fixtureModel('structured', ['a'], { capabilities: { supportsResponseSchema: true } }),
        fixtureModel('emb', ['a'], { type: 'embedding', pricing: { input: '1' } }),
        ...defaultImageModels([{ provider: 'sim', weight: 1 }]),
      ],
    },
  });
  server = listening(t, up);
  baseURL = server.baseURL;
});
afterAll(() => server.close());
beforeEach(() => {
  resetUpstreams(up);
  sent.length = 0;
});

const provider = () => createSvc({ baseURL, apiKey: t.adminKey, fetch: recordingFetch as typeof fetch });
const PERSON = z.object({ name: z.string(), age: z.number() });

describe('the svc AI SDK provider against a listening svc', () => {
  test('generateText: the answer, usage, svc_parameters sent and echoed, and the cost in providerMetadata', async () => {
    const result = await generateText({
      model: provider()('plain'),
      prompt: 'Hi',
      providerOptions: svcOptions({ strip_thinking_response: true, include_svc_system_prompt: false }),
    });
    expect(result.text).toBe('Hello from the fixture.');
    expect(result.usage).toMatchObject({ inputTokens: 10, outputTokens: 5 });
    expect(sent[0]?.svc_parameters).toEqual({ strip_thinking_response: true, include_svc_system_prompt: false });
    expect((result.response.body as { svc_parameters: Record<string, unknown> }).svc_parameters).toMatchObject({
      strip_thinking_response: true,
      include_svc_system_prompt: false,
    });
    const cost = (result.providerMetadata?.svc as { cost: { usd: number; diem: number } }).cost;
    expect(cost.usd).toBeGreaterThan(0);
  });

  test('streamText: usage is asked for and reported without includeUsage, with the cost of the usage chunk', async () => {
    const result = streamText({ model: provider()('plain'), prompt: 'Hi' });
    let text = '';
    for await (const piece of result.textStream) text += piece;
    expect(text).toBe('Hello from the fixture.');
    expect(await result.usage).toMatchObject({ inputTokens: 10, outputTokens: 5, totalTokens: 15 });
    expect(sent[0]).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    const metadata = (await result.providerMetadata)?.svc as { cost: { usd: number } };
    expect(metadata.cost.usd).toBeGreaterThan(0);
  });

  test('generateObject: json_schema with the schema by default, parsed into the object', async () => {
    up.set({ tokens: ['{"name":"Ada",', '"age":36}'] });
    const result = await generateObject({ model: provider()('structured'), schema: PERSON, prompt: 'Who?' });
    expect(result.object).toEqual({ name: 'Ada', age: 36 });
    const format = sent[0]?.response_format as { type: string; json_schema: { schema: { properties: object } } };
    expect(format.type).toBe('json_schema');
    expect(Object.keys(format.json_schema.schema.properties)).toEqual(['name', 'age']);
    expect((up.requests[0]?.body.response_format as { type: string }).type).toBe('json_schema');
    // generateObject's successor in ai 7 (already in ai 6): generateText with an object output, the same request.
    const output = await generateText({ model: provider()('structured'), output: Output.object({ schema: PERSON }), prompt: 'Who?' });
    expect(output.output).toEqual({ name: 'Ada', age: 36 });
    expect((sent[1]?.response_format as { type: string }).type).toBe('json_schema');
  });

  test("errors carry svc's text: a json_schema request to a model without schema support, a bad field, a bad key", async () => {
    const schemaless = await generateObject({ model: provider()('plain'), schema: PERSON, prompt: 'Who?' }).catch((e: unknown) => e);
    expect(APICallError.isInstance(schemaless)).toBe(true);
    expect((schemaless as APICallError).message).toBe(
      'response_format.type: Model "plain" does not support json_schema output; use json_object or a model with supportsResponseSchema',
    );
    expect((schemaless as APICallError).statusCode).toBe(400);
    expect((schemaless as APICallError).isRetryable).toBe(false);

    const hot = await generateText({ model: provider()('plain'), prompt: 'Hi', temperature: 7 }).catch((e: unknown) => e);
    expect((hot as APICallError).message).toStartWith('Invalid body parameters: temperature');

    const stranger = createSvc({ baseURL, apiKey: 'not-a-key' });
    const refused = await generateText({ model: stranger('plain'), prompt: 'Hi', maxRetries: 0 }).catch((e: unknown) => e);
    expect((refused as APICallError).statusCode).toBe(401);
    expect((refused as APICallError).message).not.toBe('Unauthorized');
    expect((refused as APICallError).message).toBe(
      await (await fetch(`${baseURL}/models`, { headers: { authorization: 'Bearer not-a-key' } })).json().then((b) => b.error),
    );

    // The stock OpenAI-compatible provider finds no `error.message` in svc's body and shows only the status text.
    const stock = createOpenAICompatible({ name: 'stock', baseURL, apiKey: t.adminKey });
    const opaque = await generateText({ model: stock('plain'), prompt: 'Hi', temperature: 7 }).catch((e: unknown) => e);
    expect((opaque as APICallError).message).toBe('Bad Request');
  });

  test("streamText: an error before the stream is svc's text; an upstream error before content is a status, not a broken stream", async () => {
    const errors: unknown[] = [];
    const hot = streamText({
      model: provider()('plain'),
      prompt: 'Hi',
      temperature: 7,
      maxRetries: 0,
      onError: ({ error }) => void errors.push(error),
    });
    for await (const _ of hot.textStream);
    expect((errors[0] as APICallError).message).toStartWith('Invalid body parameters: temperature');

    up.set({ inBandError: { message: 'prompt too long', code: 400 } });
    const inBand = streamText({ model: provider()('plain'), prompt: 'Hi', maxRetries: 0, onError: ({ error }) => void errors.push(error) });
    for await (const _ of inBand.textStream);
    expect((errors[1] as APICallError).statusCode).toBe(400);
    expect((errors[1] as APICallError).message).toBe('The upstream rejected the request: prompt too long');
  });

  test("images through the same provider, and svc's text when it refuses one", async () => {
    const { image } = await generateImage({ model: provider().imageModel('z-image-turbo'), prompt: 'a lighthouse', size: '1024x1536' });
    expect(image.mediaType).toBe('image/png');
    expect(image.uint8Array.length).toBeGreaterThan(1000);
    const refused = await generateImage({ model: provider().imageModel('z-image-turbo'), prompt: 'x'.repeat(1600), maxRetries: 0 }).catch(
      (e: unknown) => e,
    );
    expect((refused as APICallError).message).toStartWith('Invalid body parameters: prompt');
  });

  test('embeddings through the same provider', async () => {
    const { embedding, usage } = await embed({ model: provider().embeddingModel('emb'), value: 'Hi' });
    expect(embedding).toHaveLength(8);
    expect(usage.tokens).toBe(3);
  });
});

describe('structured output modes (docs/ai-sdk.md "Structured output")', () => {
  const ADA = ['{"name":"Ada",', '"age":36}'];
  const formatSent = () => (up.requests[0]?.body.response_format as { type?: string; json_schema?: unknown } | undefined) ?? null;
  const chat = (model: string) => new ChatOpenAI({ model, apiKey: t.adminKey, configuration: { baseURL }, maxRetries: 0 });

  test('AI SDK with structuredOutputs: false sends json_object and no schema (the model must be told the shape)', async () => {
    up.set({ tokens: ADA });
    const loose = createSvc({ baseURL, apiKey: t.adminKey, structuredOutputs: false });
    const result = await generateObject({ model: loose('plain'), schema: PERSON, prompt: 'Who? Answer {"name","age"}' });
    expect(result.object).toEqual({ name: 'Ada', age: 36 });
    expect(formatSent()).toEqual({ type: 'json_object' });
  });

  test('the openai SDK: chat.completions.parse with a zod response_format parses on a schema model, and is a 400 naming response_format on others', async () => {
    up.set({ tokens: ADA });
    const client = new OpenAI({ baseURL, apiKey: t.adminKey, maxRetries: 0 });
    const request = (model: string) =>
      client.chat.completions.parse({
        model,
        messages: [{ role: 'user', content: 'Who?' }],
        response_format: zodResponseFormat(PERSON, 'person'),
      });
    expect((await request('structured')).choices[0]?.message.parsed).toEqual({ name: 'Ada', age: 36 });
    const refused = await request('plain').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    // The SDK keeps svc's `error` string as the error's `error`.
    expect(String((refused as InstanceType<typeof OpenAI.BadRequestError>).error)).toStartWith(
      'response_format.type: Model "plain" does not support json_schema output',
    );
  });

  test("LangChain withStructuredOutput: jsonSchema sends the schema (400 with svc's text on a model without schema support)", async () => {
    up.set({ tokens: ADA });
    expect(await chat('structured').withStructuredOutput(PERSON, { name: 'person', method: 'jsonSchema' }).invoke('Who?')).toEqual({
      name: 'Ada',
      age: 36,
    });
    expect(formatSent()).toMatchObject({ type: 'json_schema', json_schema: { name: 'person' } });
    const refused = await chat('plain')
      .withStructuredOutput(PERSON, { name: 'person', method: 'jsonSchema' })
      .invoke('Who?')
      .catch((e: unknown) => e);
    // The openai SDK under LangChain shows svc's error string JSON-quoted after the status.
    expect((refused as Error).message).toStartWith('400 "response_format.type: Model \\"plain\\" does not support json_schema output');
  });

  test('LangChain withStructuredOutput: functionCalling answers through a tool call; jsonMode sends json_object without the schema', async () => {
    up.set({ toolCalls: [{ name: 'person', arguments: '{"name":"Ada","age":36}' }] });
    expect(await chat('plain').withStructuredOutput(PERSON, { name: 'person', method: 'functionCalling' }).invoke('Who?')).toEqual({
      name: 'Ada',
      age: 36,
    });
    expect((up.requests[0]?.body.tools as { function: { name: string } }[])[0]?.function.name).toBe('person');
    up.requests.length = 0;
    up.set({ tokens: ADA });
    expect(await chat('plain').withStructuredOutput(PERSON, { name: 'person', method: 'jsonMode' }).invoke('Who? Answer as JSON')).toEqual({
      name: 'Ada',
      age: 36,
    });
    expect(formatSent()).toEqual({ type: 'json_object' });
  });
});

/** Whether two types are the same (each assignable to the other). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** The svc_parameters type of a plugin, from its own TypeBox properties. */
type ParametersOf<T> = T extends { parameters: infer P extends TProperties } ? Static<TObject<P>> : never;
/** Every plugin's parameters (a plugin missing here still fails the key check below). */
type ServerParameters = ParametersOf<typeof characterSlug> &
  ParametersOf<typeof disableThinking> &
  ParametersOf<typeof enableWebScraping> &
  ParametersOf<typeof enableWebSearch> &
  ParametersOf<typeof enableXSearch> &
  ParametersOf<typeof includeSvcSystemPrompt> &
  ParametersOf<typeof stripThinkingResponse> &
  ParametersOf<typeof cache> &
  ParametersOf<typeof guardrails> &
  ParametersOf<typeof pii>;

describe("the provider's SvcParameters follow svc's own schema", () => {
  const server = svcParametersSchema(composeParameters(PLUGINS).properties);
  // Checked by `npm run typecheck`: a parameter added to, removed from or retyped in a plugin fails here.
  const same: Same<Required<SvcParameters>, Required<ServerParameters>> = true;

  test('the same keys, and every value the type allows passes the server schema', () => {
    expect(same).toBe(true);
    const values: { [K in keyof Required<SvcParameters>]: NonNullable<SvcParameters[K]>[] } = {
      character_slug: ['alan-watts'],
      disable_thinking: [true, false],
      enable_web_scraping: [true, false],
      enable_web_search: ['off', 'on', 'auto'],
      enable_web_citations: [true, false],
      include_search_results_in_stream: [true, false],
      return_search_results_as_documents: [true, false],
      enable_x_search: [true, false],
      include_svc_system_prompt: [true, false],
      strip_thinking_response: [true, false],
      cache: ['use', 'refresh', 'bypass', { mode: 'use', ttl: 60 }, { ttl: 1 }],
      guardrails: [['pii'], ['deny_list', 'limits', 'output_schema', 'webhook'], []],
      pii_restore: [true, false],
    };
    expect(Object.keys(values).sort()).toEqual(Object.keys(server.properties).sort());
    for (const [key, list] of Object.entries(values))
      for (const value of list as unknown[])
        expect(`${key}=${JSON.stringify(value)} ${Value.Check(server, { [key]: value })}`).toBe(`${key}=${JSON.stringify(value)} true`);
    expect(Value.Check(server, { enable_web_search: 'sometimes' })).toBe(false);
  });
});
