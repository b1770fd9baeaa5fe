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
});
