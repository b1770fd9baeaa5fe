import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import OpenAI from 'openai';
import { startUpstream, type FixtureUpstream } from '../fixtures/openai-upstream';
import { startTestApp, type TestApp } from '../helpers/app';
import { contentOf, echoPlugin, fixtureModel, fixtureProvider, recordingMeter, sseData, upperPlugin } from './helpers';

let a: FixtureUpstream;
let b: FixtureUpstream;
let t: TestApp;
const m = recordingMeter();

beforeAll(async () => {
  a = startUpstream('a');
  b = startUpstream('b');
  t = await startTestApp({
    meter: m.meter,
    extras: { chat: { plugins: [echoPlugin, upperPlugin], pingIntervalMs: 25 } },
    config: {
      providers: [fixtureProvider('up-a', a.url, 400), fixtureProvider('up-b', b.url, 400)],
      models: [
        fixtureModel('fix-one', ['up-a'], { name: 'Fixture One', traits: ['default'] }),
        fixtureModel('fix-two', ['up-a', 'up-b']),
        fixtureModel('fix-vision', ['up-a'], { capabilities: { supportsVision: true } }),
        fixtureModel('fix-old', ['up-a'], { deprecation: { date: '2027-01-01', message: 'fix-old goes away' } }),
        { id: 'fix-embed', type: 'embedding', routes: [{ provider: 'up-a' }], pricing: { input: '1' } },
      ],
    },
  });
}, 20_000);
afterAll(async () => {
  await t.close();
  await a.close();
  await b.close();
});
beforeEach(() => {
  a.set({});
  b.set({});
  a.requests.length = 0;
  b.requests.length = 0;
  m.calls.opened.length = 0;
  m.calls.settled.length = 0;
  m.calls.released = 0;
});

const user = (content: unknown = 'Hi') => [{ role: 'user', content }];
const chat = (json: Record<string, unknown>, init: { key?: string | null } = {}) =>
  t.request('/chat/completions', { method: 'POST', json: { model: 'fix-one', messages: user(), ...json }, ...init });

describe('happy path', () => {
  test('JSON: upstream answer with svc model id, cost, echo and headers; upstream sees its own model name', async () => {
    const res = await chat({ temperature: 0.5, svc_parameters: { unknown_key: 1 } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-svc-model-id')).toBe('fix-one');
    expect(res.headers.get('x-svc-model-name')).toBe('Fixture One');
    expect(res.headers.get('x-svc-model-router')).toBe('up-a');
    expect(res.headers.get('x-ratelimit-remaining-requests')).toBe('99');
    expect(res.headers.get('cf-ray')).toMatch(/-SVC$/);
    expect(res.headers.get('x-svc-version')).toBeTruthy();
    const body = await res.json();
    expect(body).toMatchObject({ object: 'chat.completion', model: 'fix-one', cost: { usd: 0.001234, diem: 0 } });
    expect(body.choices[0].message.content).toBe('Hello from the fixture.');
    expect(body.svc_parameters).toMatchObject({
      enable_e2ee: true,
      enable_web_search: 'off',
      // This app runs only the test plugins: no service prompt is included, and the echo says so.
      include_svc_system_prompt: false,
      test_flag: false,
    });
    expect(body.svc_parameters.unknown_key).toBeUndefined();
    const sent = a.requests[0]?.body as Record<string, unknown>;
    expect(sent).toMatchObject({ model: 'up-a-model', temperature: 0.5 });
    expect(sent.svc_parameters).toBeUndefined();
    expect(sent.stream_options).toBeUndefined();
    expect(m.calls.settled).toEqual([expect.objectContaining({ promptTokens: 10, completionTokens: 5 })]);
    // "Hi" is 1 token (o200k_base), plus 3 for the message and 3 priming the reply.
    expect(m.calls.opened[0]).toMatchObject({ estimatedPromptTokens: 7, maxCompletionTokens: 4096 });
  });

  test('json_schema on a model without supportsResponseSchema is a 400 naming response_format; json_object is served', async () => {
    const schema = { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'object' } } };
    const refused = await chat({ response_format: schema });
    expect(refused.status).toBe(400);
    const body = await refused.json();
    expect(body.error).toStartWith('response_format.type: Model "fix-one" does not support json_schema output');
    expect(body.details.response_format.type._errors.length).toBe(1);
    expect((await chat({ response_format: { type: 'json_object' } })).status).toBe(200);
  });

  test('svc_parameters.enable_e2ee is echoed as the caller sent it (true when absent)', async () => {
    for (const sent of [false, true]) {
      const res = await chat({ svc_parameters: { enable_e2ee: sent } });
      expect(res.status).toBe(200);
      expect((await res.json()).svc_parameters.enable_e2ee).toBe(sent);
    }
  });

  test("a prompt naming a model's special tokens is text: counted as text and answered, not a 500", async () => {
    const res = await chat({ messages: user('Why does <|endoftext|> end my prompt? <|im_start|>') });
    expect(res.status).toBe(200);
    // Counted as the plain text it is (o200k_base: 19 tokens), plus 3 for the message and 3 priming the reply.
    expect(m.calls.opened[0]).toMatchObject({ estimatedPromptTokens: 25 });
    expect(a.requests[0]?.body.messages).toEqual(user('Why does <|endoftext|> end my prompt? <|im_start|>'));
  });

  test('aliases resolve (trait) and deprecation headers are set', async () => {
    const res = await chat({ model: 'default' });
    expect(res.headers.get('x-svc-model-id')).toBe('fix-one');
    const old = await chat({ model: 'fix-old', max_completion_tokens: 7 });
    expect(old.headers.get('x-svc-model-deprecation-warning')).toBe('fix-old goes away');
    expect(old.headers.get('x-svc-model-deprecation-date')).toBe('2027-01-01');
    expect(m.calls.opened[1]?.maxCompletionTokens).toBe(7);
  });

  test('SSE without include_usage: content passes, usage is requested upstream but stripped', async () => {
    const res = await chat({ stream: true });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    expect(res.headers.get('x-svc-model-router')).toBe('up-a');
    expect(res.headers.get('cf-ray')).toMatch(/-SVC$/);
    expect(res.headers.get('x-svc-version')).toBeTruthy();
    expect(res.headers.get('transfer-encoding')).toBeNull();
    const events = await sseData(res);
    expect(contentOf(events)).toBe('Hello from the fixture.');
    expect(events.at(-1)).toBe('[DONE]');
    expect(events.some((e) => typeof e === 'object' && (e as { usage?: unknown }).usage)).toBe(false);
    expect(a.requests[0]?.body.stream_options).toEqual({ include_usage: true });
    expect(m.calls.settled).toEqual([expect.objectContaining({ promptTokens: 10, completionTokens: 5 })]);
  });

  test('zero-copy: the client gets the upstream bytes unchanged (usage chunk aside)', async () => {
    for (const behaviour of [{}, { splitBytes: 5, tokens: ['héllo', ' 世界', ' 🎉'] }]) {
      a.set(behaviour);
      const viaSvc = await (await chat({ stream: true })).text();
      const direct = await (
        await fetch(`${a.url}/chat/completions`, {
          method: 'POST',
          body: JSON.stringify({ model: 'up-a-model', messages: user(), stream: true }),
        })
      ).text();
      expect(viaSvc).toBe(direct);
    }
  });

  test('SSE with include_usage: the final chunk carries usage and cost', async () => {
    const events = await sseData(await chat({ stream: true, stream_options: { include_usage: true } }));
    const last = events.at(-2) as { usage: unknown; cost: unknown; choices: unknown[] };
    expect(last.choices).toEqual([]);
    expect(last.usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 5 });
    expect(last.cost).toEqual({ usd: 0.001234, diem: 0 });
  });

  test('an unrequested usage chunk from the upstream is stripped too', async () => {
    a.set({ alwaysUsage: true });
    const events = await sseData(await chat({ stream: true }));
    expect(events.some((e) => typeof e === 'object' && (e as { usage?: unknown }).usage)).toBe(false);
  });
});

// Over 15 KiB, an answer given whole would make Bun send each header piece in its own system
// call (src/http/large-body.ts): uncompressed, svc sends the JSON as a stream.
describe('a long answer', () => {
  test("reaches the OpenAI SDK whole over a socket, uncompressed and chunked, with svc's headers and cost", async () => {
    const words = Array.from({ length: 4000 }, (_, i) => `w${i} `);
    a.set({ tokens: words });
    t.app.listen({ port: 0, hostname: '127.0.0.1' });
    const client = new OpenAI({
      baseURL: `http://127.0.0.1:${t.app.server?.port}/api/v1`,
      apiKey: t.adminKey,
      maxRetries: 0,
      // The SDK asks for gzip otherwise, and a compressed answer is never sent this way.
      fetch: (url, init) =>
        fetch(url, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers)), 'accept-encoding': 'identity' } }),
    });
    const { data, response } = await client.chat.completions
      .create({ model: 'fix-one', messages: [{ role: 'user', content: 'Hi' }] })
      .withResponse();
    expect(data.choices[0]!.message.content).toBe(words.join(''));
    expect(data.model).toBe('fix-one');
    expect(Buffer.byteLength(JSON.stringify(data))).toBeGreaterThan(15 * 1024);
    expect(response.headers.get('transfer-encoding')).toBe('chunked');
    expect(response.headers.get('content-encoding')).toBeNull();
    expect(response.headers.get('content-type')).toStartWith('application/json');
    expect(response.headers.get('cf-ray')).toBeTruthy();
    expect(response.headers.get('x-svc-model-id')).toBe('fix-one');
    expect(m.calls.settled).toHaveLength(1);
    await t.app.stop(true);
  });
});

describe('plugins and suffixes', () => {
  test('a plugin parameter reaches the plugin; suffix overrides the body', async () => {
    await chat({ svc_parameters: { test_flag: true, test_mode: 'a' } });
    expect(a.requests[0]?.body.test_seen).toEqual({ flag: true, mode: 'a' });
    await chat({ model: 'fix-one:test_mode=b&test_flag=false', svc_parameters: { test_flag: true, test_mode: 'a' } });
    expect(a.requests[1]?.body.test_seen).toEqual({ flag: false, mode: 'b' });
  });

  test('suffix values are URL-decoded; unknown suffix keys are ignored', async () => {
    const res = await chat({ model: 'fix-one:test_mode=%62&nobody=1' });
    expect(res.status).toBe(200);
    expect(a.requests[0]?.body.test_seen).toEqual({ flag: false, mode: 'b' });
  });

  test('stream transform: decode once, leading chunk first, extra charge settled, echo merged', async () => {
    const events = await sseData(await chat({ stream: true, svc_parameters: { test_upper: true } }));
    expect(contentOf(events)).toBe('LEAD HELLO FROM THE FIXTURE.');
    expect(m.calls.settled[0]?.extras).toEqual([{ sku: 'test', units: 1, unitPriceMicros: 5 }]);
    const json = await (await chat({ model: 'fix-one:test_upper=true' })).json();
    expect(json.choices[0].message.content).toBe('HELLO FROM THE FIXTURE.');
    expect(json.svc_parameters).toMatchObject({ test_upper: true, test_note: 'upper' });
  });
});

describe('bad input', () => {
  const cases: [string, Record<string, unknown>, string[]][] = [
    ['missing model', { model: undefined }, ['model']],
    ['empty messages', { messages: [] }, ['messages']],
    ['wrong type', { temperature: 'hot' }, ['temperature']],
    ['negative max_tokens', { max_tokens: -1 }, ['max_tokens']],
    ['bad role', { messages: [{ role: 'wizard', content: 'x' }] }, ['messages', '0', 'role']],
    ['bad svc_parameters type', { svc_parameters: { test_flag: 'yes' } }, ['svc_parameters', 'test_flag']],
    ['bad svc_parameters enum', { svc_parameters: { test_mode: 'z' } }, ['svc_parameters', 'test_mode']],
    ['invalid suffix value', { model: 'fix-one:test_mode=z' }, ['model']],
    ['malformed suffix', { model: 'fix-one:test_mode' }, ['model']],
    [
      'image on a text-only model',
      { messages: user([{ type: 'image_url', image_url: { url: 'https://x/y.png' } }]) },
      ['messages', '0', 'content', '0', 'type'],
    ],
    [
      'audio on a text-only model',
      { messages: user([{ type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } }]) },
      ['messages', '0', 'content', '0', 'type'],
    ],
    [
      'video on a vision model',
      { model: 'fix-vision', messages: user([{ type: 'video_url', video_url: { url: 'https://x/v.mp4' } }]) },
      ['messages', '0', 'content', '0', 'type'],
    ],
    ['embedding model', { model: 'fix-embed' }, ['model']],
    // Strings where objects or arrays belong are refused, not mangled into {"0": ...} by Elysia's normalizer.
    ['a string for reasoning', { reasoning: 'high' }, ['reasoning']],
    ['a string for tools', { tools: 'none' }, ['tools']],
    ['a string for svc_parameters', { svc_parameters: 'x' }, ['svc_parameters']],
    ['a string for stream_options', { stream_options: 'x' }, ['stream_options']],
  ];
  for (const [name, json, path] of cases)
    test(`${name} is a 400 naming ${path.join('.')}`, async () => {
      const res = await chat(json);
      expect(res.status).toBe(400);
      const body = await res.json();
      let node = body.details;
      for (const p of path) node = node?.[p];
      expect(node?._errors?.length).toBeGreaterThan(0);
      expect(a.requests).toHaveLength(0);
      expect(m.calls.opened).toHaveLength(0);
    });

  test('a mis-typed field from an anonymous caller is still a 401, not a 400', async () => {
    const res = await t.request('/chat/completions', {
      method: 'POST',
      key: null,
      json: { model: 'fix-one', messages: user('x'), tools: 'x' },
    });
    expect(res.status).toBe(401);
  });

  test('unknown model is a 404 with a clear message', async () => {
    const res = await chat({ model: 'no-such-model:test_flag=true' });
    expect(res.status).toBe(404);
    expect((await res.json()).error).toContain('no-such-model');
  });

  test('401 without a key and with a wrong key', async () => {
    expect((await chat({}, { key: null })).status).toBe(401);
    expect((await chat({}, { key: 'svc_wrong' })).status).toBe(401);
    expect(a.requests).toHaveLength(0);
  });

  test('multimodal parts and cache_control pass through to a supporting model', async () => {
    const content = [
      { type: 'text', text: 'What is this?', cache_control: { type: 'ephemeral' } },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
    ];
    const res = await chat({ model: 'fix-vision', messages: user(content), prompt_cache_key: 'k1' });
    expect(res.status).toBe(200);
    expect(a.requests[0]?.body.messages).toEqual(user(content));
    expect(a.requests[0]?.body.prompt_cache_key).toBe('k1');
  });
});

describe('upstream failures', () => {
  test('a hanging upstream times out with 504 and nothing is charged', async () => {
    a.set({ hang: true });
    const started = performance.now();
    const res = await chat({});
    expect(res.status).toBe(504);
    expect((await res.json()).error).toContain('did not respond');
    expect(performance.now() - started).toBeLessThan(2000);
    expect(m.calls.released).toBe(1);
    expect(m.calls.settled).toHaveLength(0);
  });

  test('a stream whose first byte is late gets headers and pings, then the timeout in-band; nothing charged', async () => {
    a.set({ hang: true });
    const res = await chat({ stream: true });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-svc-model-router')).toBe('up-a');
    const text = await res.text();
    expect(text.startsWith(': ping\n\n')).toBe(true);
    expect(text).toContain('did not respond within 400 ms');
    expect(text).toContain('"code":"upstream_error"');
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(m.calls.released).toBe(1);
    expect(m.calls.settled).toHaveLength(0);
  });

  test('a late first byte still streams normally after the early headers', async () => {
    a.set({ headerDelayMs: 120 });
    const events = await sseData(await chat({ stream: true, stream_options: { include_usage: true } }));
    expect(contentOf(events)).toBe('Hello from the fixture.');
    expect((events.at(-2) as { cost: unknown }).cost).toEqual({ usd: 0.001234, diem: 0 });
    expect(m.calls.settled).toHaveLength(1);
  });

  test('leading chunks go out while the first byte is late; a cancel then releases and aborts', async () => {
    a.set({ hang: true });
    const res = await chat({ stream: true, svc_parameters: { test_upper: true } });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain('LEAD');
    const aborted = a.nextAbort();
    await reader.cancel();
    await aborted;
    for (let i = 0; i < 50 && m.calls.released === 0; i++) await Bun.sleep(5);
    expect(m.calls.released).toBe(1);
    expect(m.calls.settled).toHaveLength(0);
  });

  test('5xx on one replica retries on the other before the first byte', async () => {
    a.set({ status: 500 });
    b.set({ status: 500 });
    for (let i = 0; i < 4; i++) {
      a.set(i % 2 ? { status: 500 } : {});
      b.set(i % 2 ? {} : { status: 500 });
      const res = await chat({ model: 'fix-two', stream: i > 1 });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-svc-model-router')).toBe(i % 2 ? 'up-b' : 'up-a');
      await res.arrayBuffer();
    }
  });

  test('all replicas failing is a 502; saturation is a 503; nothing charged', async () => {
    a.set({ status: 500 });
    b.set({ status: 502 });
    const res = await chat({ model: 'fix-two' });
    expect(res.status).toBe(502);
    expect(a.requests.length + b.requests.length).toBe(2);
    a.set({ status: 429 });
    b.set({ status: 503 });
    expect((await chat({ model: 'fix-two' })).status).toBe(503);
    expect(m.calls.released).toBe(2);
    expect(m.calls.settled).toHaveLength(0);
  });

  test('an upstream 400 is not retried and comes back as a 400', async () => {
    a.set({ status: 400 });
    const res = await chat({});
    expect(res.status).toBe(400);
    expect((await res.json()).error).toContain('fixture a says 400');
  });

  test('mid-stream failure ends with an in-band error and [DONE]; what was forwarded is charged', async () => {
    for (const json of [{}, { svc_parameters: { test_upper: true } }]) {
      m.calls.settled.length = 0;
      a.set({ failAfterChunks: 3, chunkDelayMs: 5 });
      const res = await chat({ stream: true, stream_options: { include_usage: true }, ...json });
      expect(res.status).toBe(200);
      const events = await sseData(res);
      expect(events.at(-1)).toBe('[DONE]');
      expect(events.at(-2)).toMatchObject({ error: { type: 'server_error', code: 'upstream_error', param: null } });
      expect(m.calls.settled).toHaveLength(1);
      expect(m.calls.settled[0]?.completionTokens).toBeGreaterThanOrEqual(1);
    }
  });

  test('UTF-8 characters and <think> tags split across chunks arrive intact', async () => {
    const tokens = ['<think>', 'déjà vu 🤔', '</think>', '\n\n', 'Grüße, 世界! ', '🎉🎉'];
    for (const json of [{}, { svc_parameters: { test_upper: true } }]) {
      a.set({ splitBytes: 3, tokens });
      const events = await sseData(await chat({ stream: true, ...json }));
      const expected = tokens.join('');
      expect(contentOf(events)).toBe('test_upper' in (json.svc_parameters ?? {}) ? `LEAD ${expected.toUpperCase()}` : expected);
      expect(events.at(-1)).toBe('[DONE]');
    }
  });

  test('keep-alive pings while the upstream is silent', async () => {
    a.set({ silenceMs: 150 });
    const res = await chat({ stream: true });
    const text = await res.text();
    expect(text).toContain(': ping\n\n');
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
  });
});

describe('openapi', () => {
  test('the chat operation documents svc_parameters composed from the plugins', async () => {
    const doc = await (await t.request('/openapi.json')).json();
    const op = doc.paths['/chat/completions']?.post ?? doc.paths['/api/v1/chat/completions']?.post;
    expect(op.operationId).toBe('createChatCompletion');
    const schema = JSON.stringify(op.requestBody);
    expect(schema).toContain('svc_parameters');
    expect(schema).toContain('test_flag');
    expect(schema).toContain('test_upper');
  });
});

describe('OpenAI paths the service does not offer', () => {
  test('/completions and /moderations are 404s that say so and name what to use, with the openai SDK showing it', async () => {
    for (const [path, says] of [
      ['/completions', 'use POST /api/v1/chat/completions'],
      ['/moderations', 'does not offer a moderation endpoint'],
    ] as const) {
      const res = await t.request(path, { method: 'POST', json: { model: 'fix-one', prompt: 'x', input: 'x' } });
      expect(res.status).toBe(404);
      expect((await res.json()).error).toContain(says);
      expect(res.headers.get('cf-ray')).toBeTruthy();
    }
    const sdk = new OpenAI({
      apiKey: t.adminKey,
      baseURL: 'http://localhost/api/v1',
      fetch: (input, init) => t.app.handle(new Request(input as string, init as RequestInit)),
      maxRetries: 0,
    });
    const refusal = await sdk.completions.create({ model: 'fix-one', prompt: 'x' }).catch((e: Error) => e);
    expect(refusal).toBeInstanceOf(OpenAI.NotFoundError);
    expect((refusal as Error).message).toContain('legacy text-completions API');
  });
});

describe('pipeline edges', () => {
  test('prompt_cache_key pins a conversation to one replica; different keys spread', async () => {
    const routerOf = async (key: string) => (await chat({ model: 'fix-two', prompt_cache_key: key })).headers.get('x-svc-model-router');
    const first = await routerOf('conv-1');
    for (let i = 0; i < 5; i++) expect(await routerOf('conv-1')).toBe(first as string);
    const seen = new Set<string | null>();
    for (let i = 0; i < 20; i++) seen.add(await routerOf(`conv-${i}`));
    expect(seen).toEqual(new Set(['up-a', 'up-b']));
  });

  test('unknown top-level fields are dropped, not forwarded', async () => {
    const res = await chat({ not_a_field: 1 });
    expect(res.status).toBe(200);
    expect(a.requests[0]?.body.not_a_field).toBeUndefined();
  });

  test('best_of cannot multiply the cost unreserved: it is dropped, never forwarded, and the reservation is one choice', async () => {
    // The reservation without the request's context (its request id differs).
    const reserved = () => {
      const { ctx: _, ...rest } = m.calls.opened[0]!;
      return rest;
    };
    await chat({});
    const plain = reserved();
    m.calls.opened.length = 0;
    const res = await chat({ best_of: 20, n: 1 });
    expect(res.status).toBe(200);
    expect(a.requests[1]?.body.best_of).toBeUndefined();
    expect(a.requests[1]?.body.n).toBe(1);
    expect(reserved()).toEqual(plain);
  });
});

describe('body parsing', () => {
  test('a body declared as a form is a 415 (even when it holds JSON); malformed JSON is a 400', async () => {
    const body = JSON.stringify({ model: 'fix-one', messages: user() });
    const form = await t.request('/chat/completions', {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(415);
    expect((await form.json()).error).toContain('application/x-www-form-urlencoded');
    expect(a.requests).toHaveLength(0);
    const bad = await t.request('/chat/completions', {
      method: 'POST',
      body: '{"model":',
      headers: { 'content-type': 'application/json' },
    });
    expect(bad.status).toBe(400);
    expect((await bad.json()).details.body._errors.length).toBeGreaterThan(0);
  });
});
