import { describe, expect, test } from 'bun:test';
import { createLogger } from '../../src/log';
import type { ChatCompletion, UpstreamChatRequest } from '../../src/stream/wire';
import { readSseEvents } from '../../src/stream/events';
import { UpstreamFailure } from '../../providers/errors';
import { openAICompatible } from '../../providers/openai-compatible';
import { simulator } from '../../providers/simulator';

const signal = () => new AbortController().signal;
const req = (extra: Partial<UpstreamChatRequest> = {}): UpstreamChatRequest => ({
  model: 'svc-id',
  messages: [{ role: 'user', content: 'Hello world!' }],
  ...extra,
});

/** A fetch that records its call and answers with `answer`. */
function recordingFetch(answer: () => Response) {
  const calls: { url: string; init: RequestInit }[] = [];
  const f = (async (url: string, init: RequestInit) => {
    calls.push({ url, init });
    return answer();
  }) as unknown as typeof fetch;
  return { f, calls };
}

describe('openAICompatible (injected fetch)', () => {
  test('posts to <baseURL>/chat/completions with the key and the upstream model name', async () => {
    const completion = {
      id: 'x',
      object: 'chat.completion',
      created: 1,
      model: 'up',
      choices: [],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    };
    const { f, calls } = recordingFetch(() => Response.json(completion));
    const p = openAICompatible({ id: 'p', baseURL: 'http://127.0.0.1:1/v1/', apiKey: 'sk-test', fetch: f });
    const out = await p.chat!(req(), { signal: signal(), upstreamModel: 'org/Model', timeoutMs: 1000 });
    expect(out.kind).toBe('json');
    expect((out as { body: ChatCompletion }).body.id).toBe('x');
    expect(calls[0]?.url).toBe('http://127.0.0.1:1/v1/chat/completions');
    expect((calls[0]?.init.headers as Record<string, string>).authorization).toBe('Bearer sk-test');
    expect(JSON.parse(String(calls[0]?.init.body)).model).toBe('org/Model');
  });

  test('the JSON body reaches a real upstream as UTF-8 bytes, non-ASCII text intact, with its byte length', async () => {
    // What the upstream got: the declared length, the bytes' length, the content type and the parsed body.
    const seen: { declared: string | null; bytes: number; type: string | null; body: unknown }[] = [];
    const server = Bun.serve({
      port: 0,
      async fetch(request) {
        const bytes = new Uint8Array(await request.arrayBuffer());
        const { headers } = request;
        seen.push({
          declared: headers.get('content-length'),
          bytes: bytes.length,
          type: headers.get('content-type'),
          body: JSON.parse(new TextDecoder().decode(bytes)),
        });
        return Response.json({ id: 'x', object: 'chat.completion', created: 1, model: 'up', choices: [] });
      },
    });
    try {
      const text = 'héllo wörld, 你好 🙂';
      const p = openAICompatible({ id: 'p', baseURL: `http://127.0.0.1:${server.port}/v1`, fetch });
      await p.chat!(req({ messages: [{ role: 'user', content: text }] }), { signal: signal(), upstreamModel: 'up', timeoutMs: 5000 });
      expect(seen[0]?.type).toBe('application/json');
      expect(Number(seen[0]?.declared)).toBe(seen[0]!.bytes);
      expect(seen[0]?.body).toMatchObject({ model: 'up', messages: [{ role: 'user', content: text }] });
    } finally {
      server.stop(true);
    }
  });

  test('each capability calls its OpenAI path with the replica model name: embeddings, speech (bytes), transcriptions (multipart)', async () => {
    const call = { signal: signal(), upstreamModel: 'org/Model', timeoutMs: 1000 };
    const emb = recordingFetch(() => Response.json({ data: [{ object: 'embedding', index: 0, embedding: [0.5] }] }));
    const embedded = await openAICompatible({ id: 'p', baseURL: 'http://127.0.0.1:1/v1', fetch: emb.f }).embed!(
      { model: 'svc-id', input: 'x', encoding_format: 'float' },
      call,
    );
    expect(embedded.data[0]).toEqual({ index: 0, json: '[0.5]' });
    expect(emb.calls[0]?.url).toBe('http://127.0.0.1:1/v1/embeddings');
    expect(JSON.parse(String(emb.calls[0]?.init.body))).toMatchObject({ model: 'org/Model', input: 'x', encoding_format: 'float' });

    const wav = new Uint8Array([82, 73, 70, 70, 1, 2, 3]);
    const tts = recordingFetch(() => new Response(wav, { headers: { 'content-type': 'audio/wav' } }));
    const spoken = await openAICompatible({ id: 'p', baseURL: 'http://127.0.0.1:1/v1', fetch: tts.f }).speech!(
      { input: 'hi', voice: 'a' },
      call,
    );
    expect(spoken.contentType).toBe('audio/wav');
    expect(new Uint8Array(await new Response(spoken.body).arrayBuffer())).toEqual(wav);
    expect(tts.calls[0]?.url).toBe('http://127.0.0.1:1/v1/audio/speech');
    expect(JSON.parse(String(tts.calls[0]?.init.body)).model).toBe('org/Model');

    const asr = recordingFetch(() => Response.json({ text: 'hello' }));
    const form = new FormData();
    form.append('file', new Blob([wav], { type: 'audio/wav' }), 'a.wav');
    form.append('model', 'svc-id');
    const heard = await openAICompatible({ id: 'p', baseURL: 'http://127.0.0.1:1/v1', fetch: asr.f }).transcribe!(form, call);
    expect(heard).toEqual({ text: 'hello' });
    expect(asr.calls[0]?.url).toBe('http://127.0.0.1:1/v1/audio/transcriptions');
    const sent = asr.calls[0]?.init.body as FormData;
    expect(sent.get('model')).toBe('org/Model');
    expect(sent.get('file')).toBeInstanceOf(Blob);
  });

  test('a provider narrowed by config declares only those capabilities', () => {
    const p = openAICompatible({ id: 'p', baseURL: 'http://127.0.0.1:1/v1', fetch, capabilities: ['embed'] });
    expect([...p.capabilities]).toEqual(['embed']);
  });

  test('maps upstream statuses: 5xx/401/404 retryable 502, 429 retryable 503, 400 final 400', async () => {
    const cases: [number, number, boolean][] = [
      [500, 502, true],
      [401, 502, true],
      [404, 502, true],
      [429, 503, true],
      [503, 503, true],
      [400, 400, false],
      [422, 400, false],
    ];
    for (const [upstream, status, retryable] of cases) {
      const { f } = recordingFetch(() => Response.json({ error: { message: 'nope' } }, { status: upstream }));
      const p = openAICompatible({ id: 'p', baseURL: 'http://127.0.0.1:1/v1', fetch: f });
      const err = await p.chat!(req(), { signal: signal(), upstreamModel: 'm', timeoutMs: 1000 }).catch((e) => e);
      expect(err).toBeInstanceOf(UpstreamFailure);
      expect([upstream, err.status, err.retryable]).toEqual([upstream, status, retryable]);
    }
  });

  test('an upstream that closes its stream before any byte is a retryable 502', async () => {
    const { f } = recordingFetch(
      () => new Response(new ReadableStream({ start: (c) => c.close() }), { headers: { 'content-type': 'text/event-stream' } }),
    );
    const p = openAICompatible({ id: 'p', baseURL: 'http://127.0.0.1:1/v1', fetch: f });
    const err = await p.chat!(req({ stream: true }), { signal: signal(), upstreamModel: 'm', timeoutMs: 1000 }).catch((e) => e);
    expect(err).toMatchObject({ status: 502, retryable: true });
  });
});

describe('simulator', () => {
  const sim = (options: Record<string, unknown> = {}) =>
    simulator({
      id: 'sim',
      options: { latencyMs: 0, tokensPerSecond: 0, ...options },
      catalog: { isReasoning: (m) => m === 'thinker', dimensionsOf: () => undefined },
      log: createLogger('silent'),
    });

  test('JSON with real usage counts and max_tokens -> finish_reason length', async () => {
    const full = (await sim().chat!(req(), { signal: signal(), upstreamModel: 'plain', timeoutMs: 1000 })) as { body: ChatCompletion };
    // o200k_base: "Hello world!" is 3 tokens, plus 3 for the message and 3 priming the reply.
    expect(full.body.usage.prompt_tokens).toBe(9);
    expect(full.body.usage.completion_tokens).toBeGreaterThan(5);
    expect(full.body.choices[0]?.finish_reason).toBe('stop');
    expect(full.body.choices[0]?.message.content).toContain('Hello world!');
    const cut = (await sim().chat!(req({ max_tokens: 4 }), { signal: signal(), upstreamModel: 'plain', timeoutMs: 1000 })) as {
      body: ChatCompletion;
    };
    expect(cut.body.usage.completion_tokens).toBe(4);
    expect(cut.body.choices[0]?.finish_reason).toBe('length');
  });

  test('SSE: role chunk, tokens, finish, usage when asked, [DONE]; <think> for reasoning models unless disabled', async () => {
    const run = async (extra: Partial<UpstreamChatRequest>, model = 'thinker') => {
      const out = await sim().chat!(req({ stream: true, stream_options: { include_usage: true }, ...extra }), {
        signal: signal(),
        upstreamModel: model,
        timeoutMs: 1000,
      });
      const events = await Array.fromAsync(readSseEvents((out as { body: ReadableStream<Uint8Array> }).body));
      return events.map((e) => (e.data === '[DONE]' ? '[DONE]' : JSON.parse(e.data)));
    };
    const events = await run({});
    expect(events[0].choices[0].delta.role).toBe('assistant');
    expect(events.at(-1)).toBe('[DONE]');
    const usage = events.at(-2).usage;
    const text = events.map((e) => (e === '[DONE]' ? '' : (e.choices[0]?.delta?.content ?? ''))).join('');
    expect(text).toStartWith('<think>');
    expect(usage.completion_tokens).toBe(events.length - 4);
    expect(usage.completion_tokens_details.reasoning_tokens).toBeGreaterThan(0);
    for (const off of [{ chat_template_kwargs: { enable_thinking: false } }, { reasoning_effort: 'none' }]) {
      const plain = await run(off);
      expect(plain.map((e) => (e === '[DONE]' ? '' : (e.choices[0]?.delta?.content ?? ''))).join('')).not.toContain('<think>');
    }
  });

  test('latency and tokens/second pace the stream', async () => {
    const started = performance.now();
    const out = await sim({ latencyMs: 30, tokensPerSecond: 500 }).chat!(req({ stream: true }), {
      signal: signal(),
      upstreamModel: 'plain',
      timeoutMs: 1000,
    });
    await new Response((out as { body: ReadableStream<Uint8Array> }).body).text();
    // ~20 tokens at 2 ms each after 30 ms of latency.
    expect(performance.now() - started).toBeGreaterThan(50);
  });
});
