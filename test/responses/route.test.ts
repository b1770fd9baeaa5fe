import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { createApiKey } from '../../src/auth/api-keys';
import { createAccount } from '../../src/auth/bootstrap';
import { ledgerCharges } from '../../src/db/schema';
import { readSseEvents } from '../../src/stream/events';
import { fixtureModel, fixtureProvider } from '../chat/helpers';
import { startSearxng } from '../fixtures/search-searxng';
import type { FixtureEngine } from '../fixtures/search-engines';
import { startUpstream, type FixtureUpstream } from '../fixtures/openai-upstream';
import { startTestApp, type TestApp } from '../helpers/app';
import { BACKENDS } from '../helpers/backends';

/** The typed events of a Responses stream: each data payload, with the SSE event name it came under. */
async function events(res: Response): Promise<{ name: string | null; data: Record<string, unknown> }[]> {
  const out: { name: string | null; data: Record<string, unknown> }[] = [];
  for await (const e of readSseEvents(res.body as ReadableStream<Uint8Array>)) out.push({ name: e.event, data: JSON.parse(e.data) });
  return out;
}

for (const backend of BACKENDS)
  describe(`POST /responses on the metered call, on ${backend.name}`, () => {
    let up: FixtureUpstream;
    let engine: FixtureEngine;
    let t: TestApp;
    beforeAll(async () => {
      up = startUpstream('route');
      engine = startSearxng();
      t = await startTestApp({
        backend,
        extras: { chat: { pingIntervalMs: 1000 } },
        config: {
          search: { provider: 'searxng', baseUrl: engine.url, timeoutMs: 1000, maxResults: 3, priceMicros: 10_000 },
          providers: [fixtureProvider('up', up.url, 1500)],
          models: [fixtureModel('fix-r', ['up']), fixtureModel('fix-s', ['up'])],
        },
      });
    }, 30_000);
    afterAll(async () => {
      await t.close();
      await up.close();
      await engine.close?.();
    });

    const post = (json: Record<string, unknown>, key: string | null = t.adminKey) =>
      t.request('/responses', { method: 'POST', json: { model: 'fix-r', input: 'Hi', ...json }, key });
    const chargesNow = async (res: Response) => {
      await t.deps.meter.flush();
      return t.deps.storage.db
        .select()
        .from(ledgerCharges)
        .where(eq(ledgerCharges.requestId, res.headers.get('cf-ray') as string));
    };
    /** The ledger charges of a response; a stream that failed settles just after its last byte, so wait for `expected` a moment. */
    const chargesOf = async (res: Response, expected = 0) => {
      // Expecting none: give a late settlement the same moment to show up, so the check can fail.
      if (expected === 0) await Bun.sleep(200);
      let rows = await chargesNow(res);
      for (let i = 0; i < 50 && rows.length < expected; i++) {
        await Bun.sleep(20);
        rows = await chargesNow(res);
      }
      return rows;
    };

    describe('bad input: a 400 DetailedError naming the field', () => {
      const cases: [string, Record<string, unknown>, string][] = [
        ['missing input', { input: undefined }, 'input'],
        ['empty input', { input: [] }, 'input'],
        ['a wrong item type', { input: [{ type: 'bogus' }] }, 'input.0.type'],
        ['a message without a role', { input: [{ type: 'message', content: 'Hi' }] }, 'input.0.role'],
        [
          'a part of an unknown type',
          { input: [{ role: 'user', content: [{ type: 'input_video', text: 'x' }] }] },
          'input.0.content.0.type',
        ],
        [
          'an image by file_id',
          { input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'file-1' }] }] },
          'input.0.content.0.image_url',
        ],
        [
          'an image for a model without vision (named by its input item)',
          {
            instructions: 'Look.',
            input: [
              { role: 'user', content: 'x' },
              { type: 'function_call', call_id: 'c', name: 'f', arguments: '{}' },
              { type: 'function_call_output', call_id: 'c', output: 'y' },
              {
                role: 'user',
                content: [
                  { type: 'input_text', text: 'a' },
                  { type: 'input_image', image_url: 'https://x.test/a.png' },
                ],
              },
            ],
          },
          'input.3.content.1.type',
        ],
        ['a function call output without call_id', { input: [{ type: 'function_call_output', output: 'x' }] }, 'input.0.call_id'],
        ['a function tool without a name', { tools: [{ type: 'function', parameters: { type: 'object' } }] }, 'tools.0.name'],
        ['a hosted tool svc does not run', { tools: [{ type: 'file_search' }] }, 'tools.0.type'],
        ['max_output_tokens of 0', { max_output_tokens: 0 }, 'max_output_tokens'],
        ['temperature above 2', { temperature: 3 }, 'temperature'],
        [
          'a text.format schema that is not an object',
          { text: { format: { type: 'json_schema', name: 'x', schema: 'nope' } } },
          'text.format.schema',
        ],
        ['tool parameters that are not an object', { tools: [{ type: 'function', name: 'f', parameters: 'nope' }] }, 'tools.0.parameters'],
        [
          'a chat-shaped function tool without a name',
          { tools: [{ type: 'function', function: { description: 'x' } }] },
          'tools.0.function.name',
        ],
        ['background without store', { background: true, store: false }, 'background'],
        ['too many fallbacks', { fallbacks: Array.from({ length: 11 }, (_, i) => `m${i}`) }, 'fallbacks'],
        ['a bad svc_parameters value', { svc_parameters: { enable_web_search: 'maybe' } }, 'svc_parameters.enable_web_search'],
        ['a bad model suffix option', { model: 'fix-r:enable_web_search=maybe' }, 'model'],
      ];
      for (const [name, json, field] of cases)
        test(name, async () => {
          const before = up.requests.length;
          const res = await post(json);
          const body = await res.json();
          expect(res.status).toBe(400);
          expect(body.error).toContain(field.split('.')[0]);
          let node = body.details;
          for (const key of field.split('.')) {
            expect(node).toHaveProperty(key);
            node = node[key];
          }
          expect(up.requests.length).toBe(before);
        });

      test('an unknown previous_response_id is a 404 naming it, before any upstream call', async () => {
        const before = up.requests.length;
        const res = await post({ previous_response_id: 'resp_nope' });
        expect(res.status).toBe(404);
        expect((await res.json()).error).toContain('previous_response_id');
        expect(up.requests.length).toBe(before);
      });

      test('a body that is not an object', async () => {
        for (const raw of ['[]', '"Hi"', '42', 'null']) {
          const res = await t.request('/responses', { method: 'POST', body: raw, headers: { 'content-type': 'application/json' } });
          expect(res.status).toBe(400);
          expect((await res.json()).error).toBeString();
        }
      });
    });

    test('401 without a key or with a wrong one', async () => {
      for (const key of [null, 'sk-not-a-key']) {
        const res = await post({}, key);
        expect(res.status).toBe(401);
        expect((await res.json()).error).toBeString();
      }
    });

    test('402 when the balance cannot cover the reservation; nothing goes upstream', async () => {
      const accountId = await createAccount(t.deps.storage.db, { creditUsd: '0.000001' });
      const key = (await createApiKey(t.deps.storage.db, { accountId, type: 'INFERENCE' })).secret;
      const before = up.requests.length;
      const res = await post({}, key);
      expect(res.status).toBe(402);
      expect((await res.json()).error).toBeString();
      expect(up.requests.length).toBe(before);
    });

    test('429 past the model rate limit', async () => {
      const accountId = await createAccount(t.deps.storage.db, { creditUsd: '10' });
      const key = (await createApiKey(t.deps.storage.db, { accountId, type: 'INFERENCE' })).secret;
      const put = await t.request(`/admin/accounts/${accountId}/rate_limits`, {
        method: 'PUT',
        json: { overrides: { models: { 'fix-r': { rpm: 1 } } } },
      });
      expect(put.status).toBe(200);
      up.set({});
      expect((await post({}, key)).status).toBe(200);
      const res = await post({}, key);
      expect(res.status).toBe(429);
      expect((await res.json()).error).toBeString();
    });

    describe('charging: one ledger line per call, nothing for a failure', () => {
      test('a completed response is one charge, the cost on the body, the chat headers on the response', async () => {
        up.set({});
        const res = await post({});
        expect(res.status).toBe(200);
        expect(res.headers.get('x-svc-model-id')).toBe('fix-r');
        expect(res.headers.get('x-ratelimit-remaining-requests')).toBeString();
        const body = await res.json();
        const charges = await chargesOf(res, 1);
        expect(charges).toHaveLength(1);
        // 10 prompt tokens at 1 USD/M and 5 completion tokens at 2 USD/M.
        expect(charges[0]).toMatchObject({ modelId: 'fix-r', amountMicros: -20 });
        expect(body.cost).toEqual({ usd: 0.00002, diem: 0 });
      });

      test('a streamed response is one charge, with usage and cost on response.completed', async () => {
        up.set({});
        const res = await post({ stream: true });
        const all = await events(res);
        const done = all.at(-1)!;
        expect(done.name).toBe('response.completed');
        expect(done.data.response).toMatchObject({
          status: 'completed',
          usage: { input_tokens: 10, output_tokens: 5 },
          cost: { usd: 0.00002 },
        });
        expect(all.every((e) => e.name === e.data.type)).toBe(true);
        expect(await chargesOf(res, 1)).toHaveLength(1);
      });

      for (const stream of [false, true]) {
        const how = stream ? 'streamed' : 'not streamed';
        test(`an upstream 5xx before the first byte is a clear error and nothing is charged (${how})`, async () => {
          up.set({ status: 500 });
          const res = await post({ stream });
          up.set({});
          expect(res.status).toBe(502);
          expect((await res.json()).error).toBeString();
          expect(await chargesOf(res)).toHaveLength(0);
        });

        test(`an upstream that does not answer in time: an error, nothing charged (${how})`, async () => {
          up.set({ hang: true });
          const res = await post({ stream });
          up.set({});
          // A stream's headers go out after one ping interval (1 s here), before the upstream timeout (1.5 s): the failure is then in-band.
          if (stream) {
            expect(res.status).toBe(200);
            const last = (await events(res)).at(-1)!;
            expect(last.name).toBe('response.failed');
            expect(last.data.response).toMatchObject({ status: 'failed', error: { message: expect.stringContaining('') } });
          } else {
            expect(res.status).toBeGreaterThanOrEqual(500);
            expect((await res.json()).error).toBeString();
          }
          expect(await chargesOf(res)).toHaveLength(0);
        });
      }

      test('a stream broken mid-way ends with response.failed and is charged for what was delivered', async () => {
        up.set({ failAfterChunks: 3, chunkDelayMs: 5, noUsage: true, tokens: ['one ', 'two ', 'three ', 'four ', 'five ', 'six'] });
        const res = await post({ stream: true });
        const all = await events(res);
        up.set({});
        const failed = all.at(-1)!;
        expect(failed.name).toBe('response.failed');
        expect(failed.data.response).toMatchObject({ status: 'failed', error: { code: 'server_error' } });
        const delivered = all.filter((e) => e.name === 'response.output_text.delta').map((e) => e.data.delta);
        expect(delivered.length).toBeGreaterThan(0);
        expect(delivered.length).toBeLessThan(6);
        const charges = await chargesOf(res, 1);
        expect(charges).toHaveLength(1);
        expect(charges[0]!.completionTokens).toBeLessThan(6);
      });
    });

    test('model suffixes and svc_parameters apply as on chat; the response names the svc model', async () => {
      up.set({});
      const res = await post({ model: 'fix-r:include_svc_system_prompt=false', instructions: 'Only this.' });
      expect((await res.json()).model).toBe('fix-r');
      expect(up.requests.at(-1)?.body.messages).toEqual([
        { role: 'system', content: 'Only this.' },
        { role: 'user', content: 'Hi' },
      ]);
      await post({ svc_parameters: { include_svc_system_prompt: false } });
      expect(up.requests.at(-1)?.body.messages).toEqual([{ role: 'user', content: 'Hi' }]);
    });

    test('<think> blocks become a reasoning item, or are removed with strip_thinking_response (a stream transform)', async () => {
      up.set({ tokens: ['<thi', 'nk>Plan', '.</think>', '\n\nAns', 'wer'] });
      for (const stream of [false, true]) {
        const kept = await post({ stream });
        const output = stream ? ((await events(kept)).at(-1)!.data.response as { output: unknown[] }).output : (await kept.json()).output;
        expect(output).toMatchObject([
          { type: 'reasoning', summary: [{ text: 'Plan.' }] },
          { type: 'message', content: [{ text: 'Answer' }] },
        ]);
        const stripped = await post({ stream, model: 'fix-r:strip_thinking_response=true' });
        const only = stream
          ? ((await events(stripped)).at(-1)!.data.response as { output: unknown[] }).output
          : (await stripped.json()).output;
        expect(only).toMatchObject([{ type: 'message', content: [{ text: 'Answer' }] }]);
        expect(only).toHaveLength(1);
      }
      up.set({});
    });

    test('fallbacks (ids or {model}) reach the chat call: a known one is served, an unknown one is a 400 naming it', async () => {
      up.set({});
      expect((await post({ fallbacks: ['fix-s', { model: 'fix-s' }] })).status).toBe(200);
      // The chat call consumes them: they are not sent upstream.
      expect(up.requests.at(-1)?.body.fallbacks).toBeUndefined();
      const refused = await post({ fallbacks: [{ model: 'no-such-model' }] });
      expect(refused.status).toBe(400);
      expect((await refused.json()).error).toContain('fallbacks');
    });

    test('web_search cites its results as url_citation annotations, charged with the search', async () => {
      up.set({ tokens: ['Otters ', 'float.', '[REF]0[/REF]', ' Really', '[REF]9[/REF]'] });
      for (const stream of [false, true]) {
        const res = await post({ web_search: true, stream });
        let text: string;
        let annotations: Record<string, unknown>[];
        if (stream) {
          const all = await events(res);
          const done = all.find((e) => e.name === 'response.output_text.done')!;
          text = done.data.text as string;
          annotations = all.filter((e) => e.name === 'response.output_text.annotation.added').map((e) => e.data.annotation as never);
        } else {
          const body = await res.json();
          text = body.output[0].content[0].text;
          annotations = body.output[0].content[0].annotations;
        }
        const start = text.indexOf('[REF]0[/REF]');
        expect(annotations).toEqual([
          {
            type: 'url_citation',
            url: 'https://en.wikipedia.org/wiki/Sea_otter',
            title: 'Sea otter - Wikipedia',
            start_index: start,
            end_index: start + 12,
          },
        ]);
        const [charge] = await chargesOf(res, 1);
        expect(charge!.lines.map((l) => l.sku)).toContain('web-search');
      }
      up.set({});
    });
  });
