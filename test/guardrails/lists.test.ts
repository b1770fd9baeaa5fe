import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { startGuardWorld, streamed, type GuardWorld } from './setup';

let w: GuardWorld;
beforeAll(async () => {
  w = await startGuardWorld({
    guardrails: { models: { 'fix-guarded': ['deny_list'] } },
    deny_list: {
      deny: [
        { name: 'codename', words: ['apollo'] },
        { name: 'tickets', regex: 'tkt-\\d{4}', on: 'output', action: 'flag' },
      ],
      allow: [{ name: 'mission', phrases: ['apollo 11'] }],
    },
  });
});
afterAll(() => w.close());
beforeEach(() => w.reset());

const ask = (content: string, extra: Record<string, unknown> = {}) =>
  w.t.request('/chat/completions', { method: 'POST', json: { model: 'fix-guarded', messages: [{ role: 'user', content }], ...extra } });

describe('deny_list guardrail over HTTP', () => {
  test('a denied word is a 400 naming the rule; nothing reaches the upstream, nothing is charged', async () => {
    const res = await ask('tell me about ＡＰＯ\u200BＬＬＯ');
    expect(res.status).toBe(400);
    expect((await res.json()).error).toBe('deny_list: rule "codename" matched the input');
    expect(res.headers.get('x-svc-guardrails')).toBe('deny_list=deny');
    expect(w.upstream.requests).toHaveLength(0);
    expect(w.meter.calls.settled).toHaveLength(0);
  });

  test('an allowed phrase and a near word pass', async () => {
    const res = await ask('apollo 11 and apollonia');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-svc-guardrails')).toBe('deny_list=pass');
  });

  test('the model has no such guardrail: the same word passes', async () => {
    const res = await w.t.request('/chat/completions', {
      method: 'POST',
      json: { model: 'fix-plain', messages: [{ role: 'user', content: 'apollo' }] },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-svc-guardrails')).toBeNull();
  });

  test("a request cannot remove the operator's guardrail (an empty list adds nothing, removes nothing)", async () => {
    const res = await ask('apollo', { svc_parameters: { guardrails: [] } });
    expect(res.status).toBe(400);
  });

  test('JSON answer: a denied word is withheld with 422 after the call; a flag rule only flags', async () => {
    w.upstream.set({ tokens: ['Launch ', 'Apollo'] });
    const denied = await ask('hi');
    expect(denied.status).toBe(422);
    expect((await denied.json()).error).toStartWith('deny_list: rule "codename" matched the output');
    w.upstream.set({ tokens: ['see TKT-1234'] });
    const flagged = await ask('hi');
    expect(flagged.status).toBe(200);
    expect((await flagged.json()).svc_parameters.guardrails_outcome).toEqual({ deny_list: 'flag' });
  });

  test('stream: a denied word split over chunks is never shown; the stream ends with content_filter and an in-band error', async () => {
    w.upstream.set({ tokens: ['The ', 'apo', 'llo', ' plan is secret'] });
    const out = await streamed(
      await w.client.chat.completions.create({ model: 'fix-guarded', messages: [{ role: 'user', content: 'hi' }], stream: true }),
    );
    expect(out.text).toBe('The ');
    expect(out.finish).toBe('content_filter');
    expect(out.error).toContain('deny_list: rule "codename" matched the output');
    expect(w.meter.calls.settled).toHaveLength(1);
  });
});

describe('assignment by key', () => {
  test("a key's guardrail runs on every request of that key and the request cannot remove it", async () => {
    const created = await w.t.request('/api_keys', { method: 'POST', json: { apiKeyType: 'INFERENCE', description: 'guarded' } });
    const { id, apiKey } = (await created.json()).data as { id: string; apiKey: string };
    const app = w.appWith({ guardrails: { keys: { [id]: ['pii'] } } });
    const res = await app.handle(
      new Request('http://localhost/api/v1/chat/completions', {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'fix-plain',
          messages: [{ role: 'user', content: 'mail a.b@example.com' }],
          svc_parameters: { guardrails: [] },
        }),
      }),
    );
    expect(res.status).toBe(200);
    expect(w.upstreamText()).toBe('mail [EMAIL_1]');
    expect(res.headers.get('x-svc-guardrails')).toBe('pii=redact');
  });
});
