import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import type OpenAI from 'openai';
import type { TestApp } from '../helpers/app';
import { createCatalog } from '../../src/models/catalog';
import { startUpstream, type FixtureUpstream } from '../fixtures/openai-upstream';
import { startAnthropicUpstream, type AnthropicFixture } from '../fixtures/anthropic-upstream';
import { balanceMicros, freshAccount, nativeModel, startNativeApp, usageLinesOf } from './helpers';

let a: FixtureUpstream;
let b: FixtureUpstream;
let claude: AnthropicFixture;
let t: TestApp;
let client: OpenAI;

const openaiModel = (id: string, provider: string, extra: Record<string, unknown> = {}) => ({
  id,
  type: 'text',
  tier: 'L',
  routes: [{ provider, model: `${provider}-model` }],
  pricing: { input: '1', output: '2' },
  ...extra,
});

beforeAll(async () => {
  a = startUpstream('a');
  b = startUpstream('b');
  claude = startAnthropicUpstream();
  ({ t, client } = await startNativeApp({
    providers: [
      { id: 'up-a', kind: 'openai-compatible', baseURL: a.url, timeoutMs: 1000 },
      { id: 'up-b', kind: 'openai-compatible', baseURL: b.url, timeoutMs: 1000 },
      { id: 'claude-up', kind: 'anthropic', baseURL: claude.url, timeoutMs: 1000 },
    ],
    models: [
      openaiModel('primary', 'up-a', { fallbacks: ['claude-backup'] }),
      nativeModel('claude-backup', 'claude-up', 'claude-fixture-9'),
      openaiModel('cheap-backup', 'up-b'),
      { id: 'an-embedder', type: 'embedding', routes: [{ provider: 'up-b' }], pricing: { input: '1' } },
    ],
  }));
}, 20_000);
afterAll(async () => {
  await t.close();
  await Promise.all([a.close(), b.close(), claude.close()]);
});
beforeEach(() => {
  for (const f of [a, b, claude]) {
    f.set({});
    f.requests.length = 0;
  }
});

const chat = (extra: Record<string, unknown> = {}, key?: string) =>
  t.request('/chat/completions', {
    method: 'POST',
    key,
    json: { model: 'primary', messages: [{ role: 'user', content: 'Hi' }], ...extra },
  });

describe('model fallbacks', () => {
  test('the first model answers when it can: its id, its prices', async () => {
    const res = await chat();
    expect(res.status).toBe(200);
    expect(res.headers.get('x-svc-model-id')).toBe('primary');
    expect(claude.requests).toHaveLength(0);
    const lines = await usageLinesOf(t, res.headers.get('cf-ray')!);
    expect(lines.map((l) => l.sku).sort()).toEqual(['primary-llm-input-mtoken', 'primary-llm-output-mtoken']);
  });

  test('configured fallbacks: the first model at capacity, the next answers; x-svc-model-id names it and it is charged at its prices', async () => {
    a.set({ status: 503 });
    const { data, response } = await client.chat.completions
      .create({ model: 'primary', messages: [{ role: 'user', content: 'Hi' }] })
      .withResponse();
    expect(response.headers.get('x-svc-model-id')).toBe('claude-backup');
    expect(response.headers.get('x-svc-model-router')).toBe('claude-up');
    expect(data.model).toBe('claude-backup');
    expect(data.choices[0]!.message.content).toBe('Hello from Claude.');
    expect(a.requests).toHaveLength(1);
    const lines = await usageLinesOf(t, response.headers.get('cf-ray')!);
    expect(lines.map((l) => [l.sku, Math.round(l.amount * 1e6)]).sort()).toEqual([
      ['claude-backup-llm-input-mtoken', 36],
      ['claude-backup-llm-output-mtoken', 210],
    ]);
  });

  test('streamed: the fallback answers the stream and the header names it', async () => {
    a.set({ status: 429 });
    const { data, response } = await client.chat.completions
      .create({ model: 'primary', messages: [{ role: 'user', content: 'Hi' }], stream: true })
      .withResponse();
    let text = '';
    for await (const chunk of data) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('Hello from Claude.');
    expect(response.headers.get('x-svc-model-id')).toBe('claude-backup');
  });

  test("a request's fallbacks replace the configured ones, as ids or the reference's {model} objects", async () => {
    a.set({ status: 503 });
    for (const fallbacks of [['cheap-backup'], [{ model: 'cheap-backup' }]]) {
      const res = await chat({ fallbacks });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-svc-model-id')).toBe('cheap-backup');
      expect((await res.json()).model).toBe('cheap-backup');
    }
    expect(claude.requests).toHaveLength(0);
    expect(b.requests).toHaveLength(2);
    expect(b.requests[0]!.body.fallbacks).toBeUndefined();
  });

  test('every candidate failing: the last error, nothing charged', async () => {
    a.set({ status: 503 });
    b.set({ status: 500 });
    const before = await balanceMicros(t);
    const res = await chat({ fallbacks: ['cheap-backup'] });
    expect(res.status).toBe(502);
    expect(await balanceMicros(t)).toBe(before);
    expect(a.requests).toHaveLength(1);
    expect(b.requests).toHaveLength(1);
  });

  test("the client's own error is not a reason to fall back", async () => {
    a.set({ status: 400 });
    const res = await chat();
    expect(res.status).toBe(400);
    expect(claude.requests).toHaveLength(0);
  });

  test('the reservation is for the dearest candidate, the charge at the model used', async () => {
    const acct = await freshAccount(t);
    // 300,000 completion tokens: 0.6 USD at the primary's prices, 9 USD at the fallback's; the account has 10.
    const fits = await chat({ max_completion_tokens: 300_000 }, acct.inferenceKey);
    expect(fits.status).toBe(200);
    // 400,000: 0.8 USD at the primary's, but 12 USD at the fallback's, so it is refused up front.
    const refused = await chat({ max_completion_tokens: 400_000 }, acct.inferenceKey);
    expect(refused.status).toBe(402);
    // Without fallbacks (an empty list replaces the configured one) it fits.
    expect((await chat({ max_completion_tokens: 400_000, fallbacks: [] }, acct.inferenceKey)).status).toBe(200);
    const lines = await usageLinesOf(t, fits.headers.get('cf-ray')!, acct.adminKey);
    expect(lines.map((l) => l.sku).sort()).toEqual(['primary-llm-input-mtoken', 'primary-llm-output-mtoken']);
  });

  test('bad fallbacks: 400 naming the entry, nothing sent', async () => {
    for (const [fallbacks, reason] of [
      [['no-such-model'], 'is not a model of the catalog'],
      [['an-embedder'], 'is of type embedding, not text'],
    ] as const) {
      const res = await chat({ fallbacks });
      expect(res.status).toBe(400);
      const body = await res.json();
      expect(body.error).toBe(`fallbacks[0]: "${fallbacks[0]}" ${reason}`);
      expect(body.details.fallbacks['0']._errors).toHaveLength(1);
    }
    expect((await chat({ fallbacks: Array(11).fill('cheap-backup') })).status).toBe(400);
    expect((await chat({ fallbacks: 'cheap-backup' })).status).toBe(400);
    expect(a.requests).toHaveLength(0);
  });

  test('a configured fallback that is not another model of the same type: a configuration error at start', () => {
    // The catalog is built at start (src/boot.ts); its error stops the service.
    const build = (fallbacks: string[]) =>
      createCatalog({
        models: [
          { ...openaiModel('one', 'up-a', { fallbacks }), routes: [{ provider: 'up-a', weight: 1 }], traits: [] },
          { id: 'emb', type: 'embedding', routes: [{ provider: 'up-a', weight: 1 }], pricing: {}, traits: [] },
        ] as never,
        simulatorProviders: new Set(),
      });
    expect(() => build(['missing'])).toThrow('model "one" falls back to "missing", which is not another text model of the catalog');
    expect(() => build(['emb'])).toThrow('falls back to "emb"');
    expect(() => build(['one'])).toThrow('falls back to "one"');
    expect(build([]).get('one')).toBeDefined();
  });
});
