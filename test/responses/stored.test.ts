import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import OpenAI from 'openai';
import { createApiKey } from '../../src/auth/api-keys';
import { createAccount } from '../../src/auth/bootstrap';
import { ledgerCharges, storedResponses } from '../../src/db/schema';
import { responsesRuntimeOf } from '../../src/responses/runtime';
import { fixtureModel, fixtureProvider } from '../chat/helpers';
import { startUpstream, type FixtureUpstream } from '../fixtures/openai-upstream';
import { startTestApp, type TestApp } from '../helpers/app';
import { BACKENDS } from '../helpers/backends';
import { WEATHER_PARAMETERS } from '../simulator/helpers';

const DAY_MS = 86_400_000;
/** The prompt tokens the fixture reports: the length of the messages it was sent, so a charge shows what went upstream. */
const promptTokensOf = (body: Record<string, unknown>) => JSON.stringify(body.messages).length;
const WEATHER_TOOL = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'Weather',
  parameters: WEATHER_PARAMETERS,
  strict: false,
};
/** No svc system prompt: the upstream's messages are exactly the conversation. */
const NO_SVC_PROMPT = { svc_parameters: { include_svc_system_prompt: false } } as Record<string, unknown>;

for (const backend of BACKENDS)
  describe(`stored responses on ${backend.name}`, () => {
    let up: FixtureUpstream;
    let t: TestApp;
    let baseURL: string;
    let otherKey: string;
    let clock = 0;
    beforeAll(async () => {
      up = startUpstream('st', { promptTokensOf });
      t = await startTestApp({
        backend,
        now: () => Date.now() + clock,
        config: { providers: [fixtureProvider('up', up.url, 5000)], models: [fixtureModel('fix-st', ['up'])] },
      });
      t.app.listen({ port: 0, hostname: '127.0.0.1' });
      baseURL = `http://127.0.0.1:${t.app.server?.port}/api/v1`;
      const other = await createAccount(t.deps.storage.db, { creditUsd: '10' });
      otherKey = (await createApiKey(t.deps.storage.db, { accountId: other, type: 'ADMIN' })).secret;
    }, 30_000);
    afterAll(async () => {
      await t.app.stop(true);
      await t.close();
      await up.close();
    });

    const client = (key = t.adminKey) => new OpenAI({ baseURL, apiKey: key, maxRetries: 0 });
    const flush = () => responsesRuntimeOf(t.deps).store.flush();
    /** The ledger charge of a request, once the meter wrote it. */
    async function chargeOf(requestId: string) {
      await t.deps.meter.flush();
      const [row] = await t.deps.storage.db.select().from(ledgerCharges).where(eq(ledgerCharges.requestId, requestId));
      return row;
    }
    const requestIdOf = (r: OpenAI.Responses.Response) => r.id.slice('resp_'.length);

    let r1: OpenAI.Responses.Response;
    let r2: OpenAI.Responses.Response;
    let r3: OpenAI.Responses.Response;

    test('three turns chained by previous_response_id, a function tool in the middle: each upstream request holds the whole history, charged as sent', async () => {
      up.set({ promptTokensOf, toolCalls: [{ name: 'get_weather', arguments: '{"city":"Paris"}' }] });
      r1 = await client().responses.create({
        model: 'fix-st',
        instructions: 'Be brief.',
        input: 'Weather in Paris?',
        tools: [WEATHER_TOOL],
        ...NO_SVC_PROMPT,
      });
      expect((r1 as unknown as { store: boolean }).store).toBe(true);
      const call = r1.output.find((item) => item.type === 'function_call') as OpenAI.Responses.ResponseFunctionToolCall;
      expect(call).toMatchObject({ name: 'get_weather', arguments: '{"city":"Paris"}' });
      const sent1 = up.requests.at(-1)!.body;
      expect(sent1.messages).toEqual([
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Weather in Paris?' },
      ]);

      up.set({ promptTokensOf, tokens: ['It is ', '21 C.'], reasoning: ['Reading the tool.'] });
      r2 = await client().responses.create({
        model: 'fix-st',
        previous_response_id: r1.id,
        instructions: 'Answer in English.',
        input: [{ type: 'function_call_output', call_id: call.call_id, output: '{"temp":21}' }],
        tools: [WEATHER_TOOL],
        ...NO_SVC_PROMPT,
      });
      expect(r2.previous_response_id).toBe(r1.id);
      expect(r2.output_text).toBe('It is 21 C.');
      const sent2 = up.requests.at(-1)!.body;
      // The first turn's instructions are not carried over; its input and output are.
      expect(sent2.messages).toEqual([
        { role: 'system', content: 'Answer in English.' },
        { role: 'user', content: 'Weather in Paris?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: call.call_id, type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
        },
        { role: 'tool', tool_call_id: call.call_id, content: '{"temp":21}' },
      ]);

      up.set({ promptTokensOf, tokens: ['Sunny.'] });
      r3 = await client().responses.create({ model: 'fix-st', previous_response_id: r2.id, input: 'And tomorrow?', ...NO_SVC_PROMPT });
      const sent3 = up.requests.at(-1)!.body;
      expect(sent3.messages).toEqual([
        ...(sent2.messages as unknown[]).slice(1),
        { role: 'assistant', content: 'It is 21 C.', reasoning_content: 'Reading the tool.' },
        { role: 'user', content: 'And tomorrow?' },
      ]);
      // One conversation, one routing affinity: its first turn's id.
      expect([sent1, sent2, sent3].map((b) => b.prompt_cache_key)).toEqual([r1.id, r1.id, r1.id]);

      for (const [r, sent] of [
        [r1, sent1],
        [r2, sent2],
        [r3, sent3],
      ] as const) {
        const prompt = promptTokensOf(sent);
        expect(r.usage?.input_tokens).toBe(prompt);
        const charge = await chargeOf(requestIdOf(r));
        expect(charge?.promptTokens).toBe(prompt);
        // fixtureModel's prices: 1 USD per million input tokens, 2 per million output tokens (a charge is negative).
        expect(charge?.amountMicros).toBe(-(prompt + 2 * r.usage!.output_tokens));
      }
    });

    test('GET /responses/{id}: the response as created, from the queue and from the database', async () => {
      const early = await client().responses.retrieve(r3.id);
      expect(early.id).toBe(r3.id);
      await flush();
      const got = await client().responses.retrieve(r2.id);
      expect(got).toMatchObject({ id: r2.id, status: 'completed', previous_response_id: r1.id, output: r2.output, usage: r2.usage });
      expect(got.output_text).toBe('It is 21 C.');
    });

    test('GET with stream=true replays the events; starting_after skips the ones up to it', async () => {
      const events: OpenAI.Responses.ResponseStreamEvent[] = [];
      for await (const e of await client().responses.retrieve(r2.id, { stream: true })) events.push(e);
      expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
      expect(events[0]!.type).toBe('response.created');
      const done = events.at(-1) as OpenAI.Responses.ResponseCompletedEvent;
      expect(done.type).toBe('response.completed');
      expect(done.response.output).toEqual(r2.output);
      const text = events.map((e) => (e.type === 'response.output_text.delta' ? e.delta : '')).join('');
      expect(text).toBe('It is 21 C.');
      const later: OpenAI.Responses.ResponseStreamEvent[] = [];
      for await (const e of await client().responses.retrieve(r2.id, { stream: true, starting_after: 3 })) later.push(e);
      expect(later.map((e) => e.sequence_number)).toEqual(events.slice(4).map((e) => e.sequence_number));
    });

    test('input_items: the whole conversation before the answer, newest first by default, paginated', async () => {
      const page = await (await t.request(`/responses/${r3.id}/input_items?limit=2`)).json();
      expect(page).toMatchObject({ object: 'list', has_more: true });
      expect(page.data.map((i: { type: string }) => i.type)).toEqual(['message', 'message']);
      expect(page.first_id).toBe(page.data[0].id);
      expect(page.last_id).toBe(page.data[1].id);
      const next = await (await t.request(`/responses/${r3.id}/input_items?limit=2&after=${page.last_id}`)).json();
      expect(next.data.map((i: { type: string }) => i.type)).toEqual(['reasoning', 'function_call_output']);
      const all: OpenAI.Responses.ResponseItem[] = [];
      for await (const item of client().responses.inputItems.list(r3.id, { order: 'asc', limit: 2 })) all.push(item);
      expect(all.map((i) => i.type)).toEqual(['message', 'function_call', 'function_call_output', 'reasoning', 'message', 'message']);
      expect(new Set(all.map((i) => i.id)).size).toBe(all.length);
      expect(all[0]).toMatchObject({ role: 'user', content: [{ type: 'input_text', text: 'Weather in Paris?' }] });
      expect(all.at(-1)).toMatchObject({ role: 'user', content: [{ type: 'input_text', text: 'And tomorrow?' }] });
    });

    test('item_reference resolves to a stored item; one the chain already holds is not sent twice', async () => {
      const answer = r2.output.find((i) => i.type === 'message')!;
      up.set({ promptTokensOf });
      await client().responses.create({
        model: 'fix-st',
        input: [
          { type: 'item_reference', id: answer.id },
          { role: 'user', content: 'Thanks' },
        ],
        ...NO_SVC_PROMPT,
      });
      expect(up.requests.at(-1)!.body.messages).toEqual([
        { role: 'assistant', content: 'It is 21 C.' },
        { role: 'user', content: 'Thanks' },
      ]);
      await client().responses.create({
        model: 'fix-st',
        previous_response_id: r2.id,
        input: [
          { type: 'item_reference', id: answer.id },
          { role: 'user', content: 'Bye' },
        ],
        ...NO_SVC_PROMPT,
      });
      const messages = up.requests.at(-1)!.body.messages as { content: unknown }[];
      expect(messages.filter((m) => m.content === 'It is 21 C.')).toHaveLength(1);
      const missing = await client()
        .responses.create({ model: 'fix-st', input: [{ type: 'item_reference', id: 'msg_nope_0' }] })
        .catch((e) => e);
      expect(missing).toBeInstanceOf(OpenAI.NotFoundError);
    });

    test("another account's id is a 404 on every operation, previous_response_id and item references included", async () => {
      const before = up.requests.length;
      const other = client(otherKey);
      const answer = r2.output.find((i) => i.type === 'message')!;
      for (const attempt of [
        () => other.responses.retrieve(r2.id),
        () => other.responses.retrieve(r2.id, { stream: true }),
        () => other.responses.inputItems.list(r2.id),
        () => other.responses.delete(r2.id),
        () => other.responses.create({ model: 'fix-st', previous_response_id: r2.id, input: 'Hi' }),
        () => other.responses.create({ model: 'fix-st', input: [{ type: 'item_reference', id: answer.id }] }),
      ])
        expect(await attempt().catch((e) => e)).toBeInstanceOf(OpenAI.NotFoundError);
      expect(up.requests.length).toBe(before);
      expect((await client().responses.retrieve(r2.id)).id).toBe(r2.id);
    });

    test('stored by account: deleting the key that made a response loses nothing', async () => {
      const [row] = await t.deps.storage.db.select().from(storedResponses).where(eq(storedResponses.id, r1.id));
      const key = await createApiKey(t.deps.storage.db, { accountId: row!.accountId, type: 'INFERENCE' });
      up.set({ promptTokensOf });
      const made = await client(key.secret).responses.create({ model: 'fix-st', input: 'Hi' });
      const del = await t.request(`/api_keys?id=${key.row.id}`, { method: 'DELETE' });
      expect(del.status).toBe(200);
      expect((await client().responses.retrieve(made.id)).id).toBe(made.id);
    });

    test('a streamed response is stored when it completes', async () => {
      up.set({ promptTokensOf, tokens: ['Streamed.'] });
      let id = '';
      for await (const e of await client().responses.create({ model: 'fix-st', input: 'Hi', stream: true }))
        if (e.type === 'response.completed') id = e.response.id;
      const got = await client().responses.retrieve(id);
      expect(got.output_text).toBe('Streamed.');
      expect(got.usage?.output_tokens).toBe(1);
    });

    test('an answer the database refuses (a NUL character) does not hold back the others written with it', async () => {
      up.set({ promptTokensOf, tokens: ['a\u0000b'] });
      const odd = await client().responses.create({ model: 'fix-st', input: 'Hi' });
      up.set({ promptTokensOf });
      const plain = await client().responses.create({ model: 'fix-st', input: 'Hi' });
      await flush(); // the batch fails
      await flush(); // retried a row at a time
      const rows = await t.deps.storage.db.select({ id: storedResponses.id }).from(storedResponses);
      expect(rows.map((r) => r.id)).toEqual(expect.arrayContaining([odd.id, plain.id]));
      expect((await client().responses.retrieve(odd.id)).output_text).toBe('ab');
    });

    test('store: false keeps nothing', async () => {
      up.set({ promptTokensOf });
      const r = await client().responses.create({ model: 'fix-st', input: 'Hi', store: false });
      expect((r as unknown as { store: boolean }).store).toBe(false);
      expect(up.requests.at(-1)!.body.prompt_cache_key).toBeUndefined();
      await flush();
      expect(
        await client()
          .responses.retrieve(r.id)
          .catch((e) => e),
      ).toBeInstanceOf(OpenAI.NotFoundError);
    });

    test('DELETE removes a response (then 404); a turn continuing it still has the turns it can find', async () => {
      const deleted = await t.request(`/responses/${r1.id}`, { method: 'DELETE' });
      expect(await deleted.json()).toEqual({ id: r1.id, object: 'response', deleted: true });
      expect(
        await client()
          .responses.retrieve(r1.id)
          .catch((e) => e),
      ).toBeInstanceOf(OpenAI.NotFoundError);
      expect((await t.request(`/responses/${r1.id}`, { method: 'DELETE' })).status).toBe(404);
      const items = await client().responses.inputItems.list(r3.id, { order: 'asc' });
      expect(items.data.map((i) => i.type)).toEqual(['function_call_output', 'reasoning', 'message', 'message']);
    });

    test('past the retention (30 days) a response is gone, and the sweep deletes its row', async () => {
      await flush();
      clock = 31 * DAY_MS;
      try {
        expect(
          await client()
            .responses.retrieve(r3.id)
            .catch((e) => e),
        ).toBeInstanceOf(OpenAI.NotFoundError);
        expect(await responsesRuntimeOf(t.deps).store.sweep()).toBeGreaterThan(0);
        const rows = await t.deps.storage.db.select().from(storedResponses);
        expect(rows).toHaveLength(0);
      } finally {
        clock = 0;
      }
    });
  });

describe('an operator who turns storage off', () => {
  let up: FixtureUpstream;
  let t: TestApp;
  beforeAll(async () => {
    up = startUpstream('st-off');
    t = await startTestApp({
      config: {
        responses: { store: false },
        providers: [fixtureProvider('up', up.url, 5000)],
        models: [fixtureModel('fix-st', ['up'])],
      },
    });
  });
  afterAll(async () => {
    await t.close();
    await up.close();
  });

  test('responses say store: false, keep nothing, and previous_response_id is a 400 naming it', async () => {
    const res = await t.request('/responses', { method: 'POST', json: { model: 'fix-st', input: 'Hi' } });
    const body = await res.json();
    expect(body.store).toBe(false);
    await responsesRuntimeOf(t.deps).store.flush();
    expect((await t.request(`/responses/${body.id}`)).status).toBe(404);
    const next = await t.request('/responses', { method: 'POST', json: { model: 'fix-st', input: 'Hi', previous_response_id: body.id } });
    expect(next.status).toBe(400);
    expect((await next.json()).error).toContain('previous_response_id');
  });
});
