import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { startGuardWorld, streamed, type GuardWorld } from './setup';

let w: GuardWorld;
beforeAll(async () => {
  w = await startGuardWorld({});
});
afterAll(() => w.close());
beforeEach(() => w.reset());

const PROMPT = 'Mail me at ann.lee@example.com, card 4111 1111 1111 1111, order 4111 1111 1111 1112.';
// The fixture answers with the placeholders it was sent, as a model that repeats them would.
const ECHO = ['Sure [EMA', 'IL_1], your card [CARD_1] is noted', ' and boss@corp.io', ' too.'];

describe('pii guardrail over HTTP (openai SDK)', () => {
  test('JSON: the e-mail and the Luhn-valid card reach the upstream as placeholders, the Luhn-invalid number passes, the answer is restored when asked', async () => {
    w.upstream.set({ tokens: ECHO });
    const res = await w.client.chat.completions
      .create({
        model: 'fix-plain',
        messages: [{ role: 'user', content: PROMPT }],
        // @ts-expect-error svc extension of the request body
        svc_parameters: { guardrails: ['pii'], pii_restore: true },
      })
      .withResponse();
    expect(w.upstreamText()).toBe('Mail me at [EMAIL_1], card [CARD_1], order 4111 1111 1111 1112.');
    expect(res.data.choices[0]!.message.content).toBe(
      'Sure ann.lee@example.com, your card 4111 1111 1111 1111 is noted and [EMAIL_2] too.',
    );
    expect(res.response.headers.get('x-svc-guardrails')).toBe('pii=redact');
    expect((res.data as unknown as { svc_parameters: Record<string, unknown> }).svc_parameters.guardrails_outcome).toEqual({
      pii: 'redact',
    });
  });

  test('JSON without restore: the answer keeps the placeholders', async () => {
    w.upstream.set({ tokens: ECHO });
    const res = await w.client.chat.completions.create({
      model: 'fix-plain',
      messages: [{ role: 'user', content: PROMPT }],
      // @ts-expect-error svc extension of the request body
      svc_parameters: { guardrails: ['pii'] },
    });
    expect(res.choices[0]!.message.content).toBe('Sure [EMAIL_1], your card [CARD_1] is noted and [EMAIL_2] too.');
    const metrics = await (await w.t.app.handle(new Request('http://localhost/metrics'))).text();
    expect(metrics).toMatch(/svc_plugin_pii_actions_total\{action="redact",detail="output"\} [1-9]/);
    expect(metrics).toMatch(/svc_plugin_pii_actions_total\{action="redact",detail="card"\} [1-9]/);
  });

  test('stream: placeholders split over chunks are restored, an e-mail split over chunks is redacted', async () => {
    w.upstream.set({ tokens: ECHO, splitBytes: 5 });
    const out = await streamed(
      await w.client.chat.completions.create({
        model: 'fix-plain',
        messages: [{ role: 'user', content: PROMPT }],
        stream: true,
        // @ts-expect-error svc extension of the request body
        svc_parameters: { guardrails: ['pii'], pii_restore: true },
      }),
    );
    expect(w.upstreamText()).toBe('Mail me at [EMAIL_1], card [CARD_1], order 4111 1111 1111 1112.');
    expect(out).toEqual({
      text: 'Sure ann.lee@example.com, your card 4111 1111 1111 1111 is noted and [EMAIL_2] too.',
      finish: 'stop',
      error: null,
    });
  });

  test('reasoning is redacted too, JSON and stream (an e-mail split over reasoning chunks)', async () => {
    const reasoning = ['The user wrote to boss', '@corp', '.io before'];
    const send = (stream: boolean) =>
      w.t.request('/chat/completions', {
        method: 'POST',
        json: { model: 'fix-plain', messages: [{ role: 'user', content: 'hi' }], stream, svc_parameters: { guardrails: ['pii'] } },
      });
    w.upstream.set({ reasoning, tokens: ['ok'] });
    const json = await (await send(false)).json();
    expect(json.choices[0].message.reasoning_content).toBe('The user wrote to [EMAIL_1] before');
    w.upstream.set({ reasoning, tokens: ['ok'], splitBytes: 7 });
    const events = (await (await send(true)).text()).split('\n').filter((l) => l.startsWith('data: {'));
    const deltas = events.map((l) => JSON.parse(l.slice(6)).choices?.[0]?.delta ?? {});
    expect(deltas.map((d) => d.reasoning_content ?? '').join('')).toBe('The user wrote to [EMAIL_1] before');
    expect(deltas.map((d) => d.content ?? '').join('')).toBe('ok');
  });

  test('without the guardrail nothing is touched', async () => {
    await w.client.chat.completions.create({ model: 'fix-plain', messages: [{ role: 'user', content: PROMPT }] });
    expect(w.upstreamText()).toBe(PROMPT);
  });

  test('action deny: the input is refused naming the class, nothing upstream or charged; mid-stream the answer ends with content_filter', async () => {
    const app = w.appWith({ pii: { action: 'deny', classes: { phone: false } } });
    const send = (content: string, stream = false) =>
      app.handle(
        new Request('http://localhost/api/v1/chat/completions', {
          method: 'POST',
          headers: { authorization: `Bearer ${w.t.adminKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            model: 'fix-plain',
            messages: [{ role: 'user', content }],
            stream,
            svc_parameters: { guardrails: ['pii'] },
          }),
        }),
      );
    const res = await send('my IBAN is DE89 3704 0044 0532 0130 00');
    expect(res.status).toBe(400);
    expect((await res.json()).error).toBe('pii: the input contains an IBAN (class iban)');
    expect(w.upstream.requests).toHaveLength(0);
    expect(w.meter.calls.settled).toHaveLength(0);
    w.upstream.set({ tokens: ['Your key is ', 'sk-proj-abcdefghij', 'klmnopqrstuvwxyz0123', ' ok'] });
    const sse = await (await send('hello', true)).text();
    expect(sse).not.toContain('sk-proj');
    expect(sse).toContain('"finish_reason":"content_filter"');
    expect(sse).toContain('pii: the output contains a secret (API key or private key) (class secret)');
  });

  test('an unknown guardrail name is a 400 naming it', async () => {
    const res = await w.t.request('/chat/completions', {
      method: 'POST',
      json: { model: 'fix-plain', messages: [{ role: 'user', content: 'x' }], svc_parameters: { guardrails: ['pji'] } },
    });
    expect(res.status).toBe(400);
    expect(JSON.stringify(await res.json())).toContain('guardrails');
  });

  describe('tool calls', () => {
    // A conversation with a tool round: the assistant's call and the tool's JSON result carry PII.
    const messages = [
      { role: 'user', content: 'Write to Ann' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'lookup', arguments: '{"name":"Ann","email":"ann.lee@example.com"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: '{"card":"4111 1111 1111 1111","note":"order 4111 1111 1111 1112"}' },
    ];
    // The model calls tools with the placeholder it saw (split over two stream chunks by the
    // fixture: `{"to":"[E` + `MAIL_1]"}`) and an address of its own (`{"cc":"boss` + `@corp.io"}`).
    const CALLS = [
      { name: 'send', arguments: '{"to":"[EMAIL_1]"}' },
      { name: 'copy', arguments: '{"cc":"boss@corp.io"}' },
    ];
    const body = (stream: boolean) => ({
      model: 'fix-plain',
      messages,
      stream,
      tools: ['lookup', 'send', 'copy'].map((name) => ({ type: 'function', function: { name, parameters: { type: 'object' } } })),
      svc_parameters: { guardrails: ['pii'], pii_restore: true },
    });

    test('the call arguments and the tool result reach the upstream redacted, still JSON', async () => {
      w.upstream.set({ toolCalls: CALLS });
      const res = await w.t.request('/chat/completions', { method: 'POST', json: body(false) });
      expect(res.status).toBe(200);
      type Sent = { role: string; tool_calls?: { function: { arguments: string } }[]; content: string };
      const sent = (w.upstream.requests.at(-1)!.body.messages as Sent[]).filter((m) => m.role !== 'system');
      expect(JSON.parse(sent[1]!.tool_calls![0]!.function.arguments)).toEqual({ name: 'Ann', email: '[EMAIL_1]' });
      expect(JSON.parse(sent[2]!.content)).toEqual({ card: '[CARD_1]', note: 'order 4111 1111 1111 1112' });
    });

    test("JSON: the answer's call arguments are restored, the model's own address redacted", async () => {
      w.upstream.set({ toolCalls: CALLS });
      const res = await w.t.request('/chat/completions', { method: 'POST', json: body(false) });
      const calls = (await res.json()).choices[0].message.tool_calls as { function: { arguments: string } }[];
      expect(calls.map((c) => JSON.parse(c.function.arguments))).toEqual([{ to: 'ann.lee@example.com' }, { cc: '[EMAIL_2]' }]);
      expect(res.headers.get('x-svc-guardrails')).toBe('pii=redact');
    });

    test('stream: a placeholder and an address split over chunks of the arguments are restored and redacted', async () => {
      w.upstream.set({ toolCalls: CALLS });
      const stream = await w.client.chat.completions.create(body(true) as never);
      const args = new Map<number, string>();
      for await (const chunk of stream as unknown as AsyncIterable<{
        choices: { delta: { tool_calls?: { index: number; function?: { arguments?: string } }[] } }[];
      }>)
        for (const call of chunk.choices[0]?.delta.tool_calls ?? [])
          args.set(call.index, (args.get(call.index) ?? '') + (call.function?.arguments ?? ''));
      expect([...args.values()].map((a) => JSON.parse(a))).toEqual([{ to: 'ann.lee@example.com' }, { cc: '[EMAIL_2]' }]);
    });

    test('action deny: an address in a tool result is refused naming the class', async () => {
      const app = w.appWith({ pii: { action: 'deny' } });
      const res = await app.handle(
        new Request('http://localhost/api/v1/chat/completions', {
          method: 'POST',
          headers: { authorization: `Bearer ${w.t.adminKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ ...body(false), messages: [messages[0], messages[2]!] }),
        }),
      );
      expect(res.status).toBe(400);
      expect((await res.json()).error).toBe('pii: the input contains a payment card number (class card)');
    });
  });
});
