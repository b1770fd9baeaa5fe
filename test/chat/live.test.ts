import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import OpenAI from 'openai';
import { startUpstream, type FixtureUpstream } from '../fixtures/openai-upstream';
import { startTestApp, type TestApp } from '../helpers/app';
import { fixtureModel, fixtureProvider, recordingMeter } from './helpers';

let up: FixtureUpstream;
let t: TestApp;
let base: string;
const m = recordingMeter();

beforeAll(async () => {
  up = startUpstream('live');
  t = await startTestApp({
    meter: m.meter,
    config: {
      providers: [fixtureProvider('up', up.url, 10_000), { id: 'sim', kind: 'simulator', options: { latencyMs: 0, tokensPerSecond: 0 } }],
      models: [fixtureModel('fix-live', ['up']), fixtureModel('sim-think', ['sim'], { capabilities: { supportsReasoning: true } })],
    },
  });
  // idleTimeout 1 s: a stream silent for longer survives only because the route lifts the timeout.
  t.app.listen({ port: 0, hostname: '127.0.0.1', idleTimeout: 1 });
  base = `http://127.0.0.1:${t.app.server?.port}/api/v1`;
}, 20_000);
afterAll(async () => {
  await t.app.stop(true);
  await t.close();
  await up.close();
});

describe('official openai SDK against a listening server', () => {
  const client = () => new OpenAI({ baseURL: base, apiKey: t.adminKey, maxRetries: 0 });

  test('non-streaming', async () => {
    const res = await client().chat.completions.create({ model: 'fix-live', messages: [{ role: 'user', content: 'Hi' }] });
    expect(res.choices[0]?.message.content).toBe('Hello from the fixture.');
    expect(res.usage?.total_tokens).toBe(15);
    expect((res as unknown as { cost: unknown }).cost).toEqual({ usd: 0.001234, diem: 0 });
  });

  test('streaming with usage', async () => {
    const stream = await client().chat.completions.create({
      model: 'fix-live',
      messages: [{ role: 'user', content: 'Hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let usage: unknown = null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('Hello from the fixture.');
    expect(usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 5 });
  });

  test('the simulator streams <think> for reasoning models, and not when disabled', async () => {
    const run = async (extra: Record<string, unknown>) => {
      const stream = await client().chat.completions.create({
        model: 'sim-think',
        messages: [{ role: 'user', content: 'Why?' }],
        stream: true,
        ...extra,
      });
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
      return text;
    };
    expect(await run({})).toStartWith('<think>');
    const plain = await run({ reasoning_effort: 'none' });
    expect(plain).not.toContain('<think>');
    expect(plain).toContain('svc simulator');
  });

  test('errors reach the SDK as APIError with the status', async () => {
    const err = await client()
      .chat.completions.create({ model: 'nope', messages: [{ role: 'user', content: 'Hi' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(404);
  });
});

describe('client disconnect', () => {
  test('aborting mid-stream aborts the upstream request and settles once', async () => {
    up.set({ chunkDelayMs: 200, tokens: Array.from({ length: 50 }, (_, i) => `t${i} `) });
    m.calls.settled.length = 0;
    const abortedBefore = up.aborted;
    const upstreamAborted = up.nextAbort();
    const controller = new AbortController();
    const res = await fetch(`${base}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'fix-live', messages: [{ role: 'user', content: 'Hi' }], stream: true }),
      signal: controller.signal,
    });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    controller.abort();
    await upstreamAborted;
    expect(up.aborted).toBe(abortedBefore + 1);
    // Settlement happens in the stream's finally; give it the turn it needs.
    for (let i = 0; i < 50 && m.calls.settled.length === 0; i++) await Bun.sleep(10);
    expect(m.calls.settled).toHaveLength(1);
    expect(m.calls.settled[0]?.completionTokens).toBeLessThan(50);
    up.set({});
  });
});

describe('idle timeout', () => {
  test('a stream whose upstream is silent for longer than the server idleTimeout is not cut', async () => {
    // Bun checks idle sockets on a ~4 s tick, so the silence must outlast that tick. Pings are
    // at the default 15 s here: only server.timeout(req, 0) keeps this stream open.
    up.set({ silenceMs: 5000 });
    const res = await fetch(`${base}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'fix-live', messages: [{ role: 'user', content: 'Hi' }], stream: true }),
    });
    const text = await res.text();
    expect(text).toContain('fixture');
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    up.set({});
  }, 15_000);
});
