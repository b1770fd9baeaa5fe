import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import type { TestApp } from '../helpers/app';
import { startGeminiUpstream, type GeminiFixture } from '../fixtures/gemini-upstream';
import { contentOf, sseData } from '../chat/helpers';
import { textTokens } from '../../src/pipeline/tokens';
import { balanceMicros, nativeModel, startNativeApp, usageLinesOf } from './helpers';

let up: GeminiFixture;
let t: TestApp;

beforeAll(async () => {
  up = startGeminiUpstream();
  ({ t } = await startNativeApp({
    providers: [{ id: 'gemini-up', kind: 'gemini', baseURL: up.url, apiKey: 'AIza-fixture', timeoutMs: 1000 }],
    models: [
      nativeModel('gemini-test', 'gemini-up', 'gemini-fixture'),
      {
        id: 'gemini-embed',
        type: 'embedding',
        routes: [{ provider: 'gemini-up', model: 'text-embedding-fixture' }],
        pricing: { input: '0.15' },
      },
    ],
  }));
}, 20_000);
afterAll(async () => {
  await t.close();
  await up.close();
});
beforeEach(() => {
  up.set({});
  up.requests.length = 0;
});

const chat = (extra: Record<string, unknown> = {}) =>
  t.request('/chat/completions', { method: 'POST', json: { model: 'gemini-test', messages: [{ role: 'user', content: 'Hi' }], ...extra } });
const embed = (input: unknown) => t.request('/embeddings', { method: 'POST', json: { model: 'gemini-embed', input } });

/** Runs `send` and checks that it charged nothing. */
async function nothingCharged(send: () => Promise<Response>): Promise<{ res: Response; body: string }> {
  const before = await balanceMicros(t);
  const res = await send();
  const body = await res.text();
  expect(await balanceMicros(t)).toBe(before);
  return { res, body };
}

describe('Gemini upstream errors before the first byte: a clear status, nothing charged', () => {
  test('RESOURCE_EXHAUSTED (429) with retry-after: 503 at capacity; UNAVAILABLE (503) too', async () => {
    up.set({ status: 429, retryAfter: '9' });
    const { res } = await nothingCharged(() => chat());
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('9');
    up.set({ status: 503 });
    expect((await nothingCharged(() => chat({ stream: true }))).res.status).toBe(503);
  });

  test("INVALID_ARGUMENT (400): 400 with the upstream's reason; a timeout: 504; garbage: 502", async () => {
    up.set({ status: 400 });
    const { res, body } = await nothingCharged(() => chat());
    expect(res.status).toBe(400);
    expect(JSON.parse(body).error).toBe('The upstream rejected the request: fixture says INVALID_ARGUMENT');
    up.set({ hang: true });
    expect((await nothingCharged(() => chat())).res.status).toBe(504);
    up.set({ garbage: 'not json' });
    expect((await nothingCharged(() => chat())).res.status).toBe(502);
    expect((await nothingCharged(() => chat({ stream: true }))).res.status).toBe(502);
  });

  for (const block of ['prompt', 'answer'] as const)
    test(`a safety block of the ${block}: 422 with x-svc-is-content-violation, streamed or not`, async () => {
      up.set({ block });
      for (const stream of [false, true]) {
        const { res, body } = await nothingCharged(() => chat({ stream }));
        expect(res.status).toBe(422);
        expect(res.headers.get('x-svc-is-content-violation')).toBe('true');
        expect(JSON.parse(body).error).toContain('content policy violation (blocked by the provider: SAFETY)');
      }
    });
});

describe('Gemini streams that fail mid-way: an in-band error, charged only for what was delivered', () => {
  for (const [name, behaviour] of [
    ['a cut connection', { cutAfterEvents: 2 }],
    ['an end without a finish reason', { endAfterEvents: 2 }],
  ] as const)
    test(name, async () => {
      up.set(behaviour);
      const before = await balanceMicros(t);
      const res = await chat({ stream: true, stream_options: { include_usage: true } });
      expect(res.status).toBe(200);
      const events = await sseData(res);
      expect(events.at(-1)).toBe('[DONE]');
      expect(events.at(-2)).toMatchObject({ error: { message: expect.any(String) } });
      const delivered = contentOf(events);
      // A part of the answer, as far as the upstream got (a cut connection may lose what it had in flight).
      expect(['Hello', 'Hello from']).toContain(delivered);
      const lines = await usageLinesOf(t, res.headers.get('cf-ray')!);
      const output = lines.find((l) => l.sku === 'gemini-test-llm-output-mtoken')!;
      expect(Math.round(output.unit * 1e6)).toBe(textTokens(delivered));
      expect(before - (await balanceMicros(t))).toBe(lines.reduce((sum, l) => sum + Math.round(l.amount * 1e6), 0));
    });
});

describe('requests a Gemini upstream cannot take, and broken embeddings', () => {
  test('a tool result naming no earlier call: 400 naming the client field, nothing sent', async () => {
    const { res, body } = await nothingCharged(() =>
      chat({
        messages: [
          { role: 'user', content: 'Hi' },
          { role: 'tool', tool_call_id: 'nope', content: 'x' },
        ],
      }),
    );
    expect(res.status).toBe(400);
    expect(JSON.parse(body).details.messages['1'].tool_call_id._errors).toHaveLength(1);
    expect(up.requests).toHaveLength(0);
  });

  test('token ids as embeddings input: 400 naming input; a wrong number of vectors: 502; nothing charged', async () => {
    const ids = await nothingCharged(() => embed([[1, 2, 3]]));
    expect(ids.res.status).toBe(400);
    expect(JSON.parse(ids.body).details.input._errors).toHaveLength(1);
    up.set({ vectors: 1 });
    expect((await nothingCharged(() => embed(['a', 'b']))).res.status).toBe(502);
    up.set({ status: 429 });
    expect((await nothingCharged(() => embed('a'))).res.status).toBe(503);
  });
});
