import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import OpenAI from 'openai';
import { ledgerLines } from '../../src/db/schema';
import { startUpstream, type FixtureUpstream } from '../fixtures/openai-upstream';
import { startTestApp, type TestApp } from '../helpers/app';
import { BACKENDS } from '../helpers/backends';
import { contentOf, fixtureModel, fixtureProvider, sseData } from '../chat/helpers';
import { listening, resetUpstreams, usdMicros } from './helpers';

for (const backend of BACKENDS) {
  describe(`an upstream error inside a 200 stream, before any content, on ${backend.name}`, () => {
    let a: FixtureUpstream;
    let b: FixtureUpstream;
    let t: TestApp;
    let client: OpenAI;
    let server: ReturnType<typeof listening>;

    beforeAll(async () => {
      a = startUpstream('a');
      b = startUpstream('b');
      t = await startTestApp({
        backend,
        config: {
          providers: [fixtureProvider('a', a.url), fixtureProvider('b', b.url)],
          models: [fixtureModel('one', ['a']), fixtureModel('two', ['a', 'b'])],
        },
      });
      server = listening(t, a, b);
      client = new OpenAI({ baseURL: server.baseURL, apiKey: t.adminKey, maxRetries: 0 });
    });
    afterAll(() => server.close());
    beforeEach(() => resetUpstreams(a, b));

    const usd = () => usdMicros(t);
    const ledgerOf = async (requestId: string | null) => {
      await t.deps.meter.flush();
      return t.deps.storage.db
        .select()
        .from(ledgerLines)
        .where(eq(ledgerLines.requestId, requestId ?? ''));
    };
    const stream = (model: string, json: Record<string, unknown> = {}) =>
      t.request('/chat/completions', {
        method: 'POST',
        json: { model, messages: [{ role: 'user', content: 'Hi' }], stream: true, ...json },
      });

    // The in-band error objects upstreams send (vLLM/SGLang a numeric code, OpenAI a type), and the
    // status each maps to: the same as the upstream's HTTP status would (providers/errors.ts).
    const CASES = [
      [
        { message: 'max_tokens is too large', type: 'BadRequestError', code: 400 },
        400,
        'The upstream rejected the request: max_tokens is too large',
      ],
      [{ message: 'slow down', type: 'rate_limit_error', code: 'rate_limit_exceeded' }, 503, 'The model is at capacity'],
      [{ message: 'overloaded', status: 503 }, 503, 'The model is at capacity'],
      [{ message: 'CUDA out of memory', type: 'server_error', code: 500 }, 502, 'Upstream error: the upstream answered 500'],
      [{ message: 'something' }, 502, 'Upstream error'],
    ] as const;

    for (const roleWithContent of [false, true])
      test(`the client gets the non-streamed status (400, 503 with Retry-After, 502) as JSON, nothing charged (${roleWithContent ? 'error first' : 'after a role chunk'})`, async () => {
        const before = await usd();
        for (const [error, status, message] of CASES) {
          a.set({ inBandError: error, roleWithContent });
          const res = await stream('one');
          expect(`${JSON.stringify(error)} ${res.status}`).toBe(`${JSON.stringify(error)} ${status}`);
          expect(res.headers.get('content-type')).toStartWith('application/json');
          expect((await res.json()).error).toStartWith(message);
          if (status === 503) expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
          expect(await ledgerOf(res.headers.get('cf-ray'))).toEqual([]);
        }
        expect(await usd()).toBe(before);
        // The same statuses as the upstream answering them as HTTP errors.
        for (const [upstreamStatus, status] of [
          [400, 400],
          [429, 503],
          [500, 502],
        ] as const) {
          a.set({ status: upstreamStatus });
          expect(`${upstreamStatus} ${(await stream('one')).status}`).toBe(`${upstreamStatus} ${status}`);
        }
      });

    test("the openai SDK sees the status and svc's message, not a stream that ends in an error", async () => {
      a.set({ inBandError: { message: 'context length exceeded', type: 'invalid_request_error', code: 'context_length_exceeded' } });
      const error = await client.chat.completions
        .create({ model: 'one', messages: [{ role: 'user', content: 'Hi' }], stream: true })
        .then(async (s) => {
          for await (const _ of s);
        })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
      expect((error as Error).message).toContain('The upstream rejected the request: context length exceeded');
    });

    test("a retryable in-band error goes to the next replica before anything is sent: the client gets b's answer, charged once", async () => {
      a.set({ inBandError: { message: 'overloaded', code: 503 } });
      b.set({ roleWithContent: true });
      // Two tries pick each replica first once (least-loaded, then the tie): one of them starts on a.
      for (let i = 0; i < 2; i++) {
        const before = await usd();
        const res = await stream('two', { stream_options: { include_usage: true } });
        expect(res.status).toBe(200);
        const events = await sseData(res);
        expect(contentOf(events)).toBe('Hello from the fixture.');
        expect(JSON.stringify(events)).not.toContain('overloaded');
        expect(res.headers.get('x-svc-model-router')).toBe('b');
        const rows = await ledgerOf(res.headers.get('cf-ray'));
        expect(rows.length).toBeGreaterThan(0);
        expect(await usd()).toBe(before + rows.reduce((s, r) => s + r.amountMicros, 0));
      }
      expect(a.requests.length).toBeGreaterThan(0);
    });

    test('content first, then an error: still the in-band error of a cut stream (the status line is out), charged for what was sent', async () => {
      a.set({ failAfterChunks: 2, chunkDelayMs: 20 });
      const before = await usd();
      const res = await stream('one');
      expect(res.status).toBe(200);
      const events = await sseData(res);
      expect(contentOf(events)).toStartWith('Hello');
      expect(JSON.stringify(events.at(-2))).toContain('"error"');
      const rows = await ledgerOf(res.headers.get('cf-ray'));
      expect(rows.length).toBeGreaterThan(0);
      expect(await usd()).toBeLessThan(before);
    });
  });
}
