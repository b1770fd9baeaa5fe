/**
 * The requests svc builds, checked against the providers' official SDKs: each is typed as the
 * SDK's own request type (a compile-time check, `npm run typecheck`), sent through the SDK
 * to the fixture upstream, and compared with what the SDK put on the wire; the fixtures'
 * answers are parsed by the SDKs too, so fixture and adapters speak the providers' format.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import Anthropic from '@anthropic-ai/sdk';
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import { GoogleGenAI, type GenerateContentParameters, type ToolConfig } from '@google/genai';
import { messagesRequest } from '../../providers/anthropic/request';
import { completionOf as anthropicCompletion } from '../../providers/anthropic/answer';
import { embedCall } from '../../providers/gemini/embed';
import { generateContentBody, type GenerateContentBody } from '../../providers/gemini/request';
import type { UpstreamChatRequest } from '../../src/stream/wire';
import { startAnthropicUpstream, type AnthropicFixture } from '../fixtures/anthropic-upstream';
import { startGeminiUpstream, type GeminiFixture } from '../fixtures/gemini-upstream';

let claude: AnthropicFixture;
let gemini: GeminiFixture;
beforeAll(() => {
  claude = startAnthropicUpstream();
  gemini = startGeminiUpstream();
});
afterAll(async () => {
  await claude.close();
  await gemini.close();
});

const tool = {
  type: 'function',
  function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
};

/** The chat requests the adapters translate, one per feature the issue lists. */
const SCENARIOS: Record<string, Pick<UpstreamChatRequest, 'messages'> & Record<string, unknown>> = {
  plain: {
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi' },
    ],
    stop: ['END'],
    max_tokens: 64,
  },
  tools: { messages: [{ role: 'user', content: 'Weather?' }], tools: [tool], tool_choice: 'required', parallel_tool_calls: false },
  'tool round trip': {
    messages: [
      { role: 'user', content: 'Weather?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '18 C' },
    ],
    tools: [tool],
  },
  images: {
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Compare' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
        ],
      },
    ],
  },
  'JSON schema': {
    messages: [{ role: 'user', content: 'Answer?' }],
    response_format: {
      type: 'json_schema',
      json_schema: { name: 'a', schema: { type: 'object', properties: { answer: { type: 'number' } } } },
    },
  },
  thinking: { messages: [{ role: 'user', content: 'Hi' }], reasoning_effort: 'medium', max_completion_tokens: 10_000 },
  'cache markers': {
    messages: [
      { role: 'system', content: [{ type: 'text', text: 'Handbook', cache_control: { type: 'ephemeral', ttl: '1h' } }] },
      { role: 'user', content: [{ type: 'text', text: 'Q', cache_control: { type: 'ephemeral' } }] },
    ],
  },
};

describe('Anthropic: what svc sends is a MessageCreateParams the official SDK sends unchanged', () => {
  for (const [name, req] of Object.entries(SCENARIOS))
    test(name, async () => {
      const client = new Anthropic({ apiKey: 'sk-ant-fixture', baseURL: claude.url, maxRetries: 0 });
      const body: MessageCreateParamsNonStreaming = { ...messagesRequest({ model: 'm', ...req }, 'claude-fixture-9', 4096), stream: false };
      const message = await client.messages.create(body);
      expect(claude.requests.at(-1)!.body).toEqual(body);
      // The SDK parses the fixture's answer, and svc's translation of it agrees with the SDK's reading.
      const svcAnswer = anthropicCompletion(message, 0).choices[0]!.message;
      const text = message.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
      expect(svcAnswer.content ?? '').toBe(text);
    });

  test('streamed: the SDK reads the fixture stream into the same message svc translates', async () => {
    const client = new Anthropic({ apiKey: 'sk-ant-fixture', baseURL: claude.url, maxRetries: 0 });
    const body = messagesRequest({ model: 'm', ...SCENARIOS.thinking!, stream: true }, 'claude-fixture-9', 4096);
    const stream = client.messages.stream(body);
    const final = await stream.finalMessage();
    expect(final.content.map((b) => b.type)).toEqual(['thinking', 'text']);
    expect(final.usage.output_tokens).toBe(7);
  });
});

/** A REST body as the @google/genai SDK's parameters (its config folds the body's parts together). */
const asSdkParameters = (model: string, b: GenerateContentBody): GenerateContentParameters => ({
  model,
  contents: b.contents,
  config: {
    ...b.generationConfig,
    systemInstruction: b.systemInstruction,
    tools: b.tools,
    toolConfig: b.toolConfig as ToolConfig | undefined,
  },
});

describe('Gemini: what svc sends is the REST body the official SDK sends for the same content', () => {
  for (const [name, req] of Object.entries(SCENARIOS))
    test(name, async () => {
      const client = new GoogleGenAI({
        apiKey: 'AIza-fixture',
        httpOptions: { baseUrl: gemini.url.replace(/\/v1beta$/, ''), apiVersion: 'v1beta' },
      });
      const body = generateContentBody({ model: 'm', ...req }, 4096);
      const answer = await client.models.generateContent(asSdkParameters('gemini-fixture', body));
      const sent = gemini.requests.at(-1)!;
      expect(sent.path).toBe('/v1beta/models/gemini-fixture:generateContent');
      expect(sent.headers['x-goog-api-key']).toBe('AIza-fixture');
      expect(sent.body).toEqual(body as GenerateContentBody & Record<string, unknown>);
      expect(answer.candidates?.[0]?.content?.parts?.length).toBeGreaterThan(0);
    });

  test('streamed: the SDK reads the fixture SSE stream', async () => {
    const client = new GoogleGenAI({
      apiKey: 'AIza-fixture',
      httpOptions: { baseUrl: gemini.url.replace(/\/v1beta$/, ''), apiVersion: 'v1beta' },
    });
    let text = '';
    for await (const chunk of await client.models.generateContentStream(
      asSdkParameters('gemini-fixture', generateContentBody({ model: 'm', ...SCENARIOS.plain! }, 4096)),
    ))
      text += chunk.text ?? '';
    expect(text).toBe('Hello from Gemini.');
    expect(gemini.requests.at(-1)!.search).toBe('?alt=sse');
  });

  test('embeddings: batchEmbedContents as the SDK sends it', async () => {
    const client = new GoogleGenAI({
      apiKey: 'AIza-fixture',
      httpOptions: { baseUrl: gemini.url.replace(/\/v1beta$/, ''), apiVersion: 'v1beta' },
    });
    const answer = await client.models.embedContent({
      model: 'text-embedding-fixture',
      contents: ['a', 'b'],
      config: { outputDimensionality: 3 },
    });
    expect(answer.embeddings).toHaveLength(2);
    const sdkSent = gemini.requests.at(-1)!;
    const svc = embedCall({ model: 'x', input: ['a', 'b'], dimensions: 3, encoding_format: 'float' }, 'text-embedding-fixture');
    expect(sdkSent.path).toBe(`/v1beta/models/text-embedding-fixture:${svc.method}`);
    expect(sdkSent.body).toEqual(svc.body as never);
  });
});
