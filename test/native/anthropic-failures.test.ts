import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import type { TestApp } from '../helpers/app';
import { startAnthropicUpstream, type AnthropicFixture } from '../fixtures/anthropic-upstream';
import { contentOf, sseData } from '../chat/helpers';
import { textTokens } from '../../src/pipeline/tokens';
import { balanceMicros, freshAccount, nativeModel, startNativeApp, usageLinesOf } from './helpers';

let up: AnthropicFixture;
let t: TestApp;

beforeAll(async () => {
  up = startAnthropicUpstream();
  ({ t } = await startNativeApp({
    providers: [{ id: 'claude-up', kind: 'anthropic', baseURL: up.url, apiKey: 'sk-ant-fixture', timeoutMs: 1000 }],
    models: [nativeModel('claude-test', 'claude-up', 'claude-fixture-9')],
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

const chat = (extra: Record<string, unknown> = {}, key?: string | null) =>
  t.request('/chat/completions', {
    method: 'POST',
    key,
    json: { model: 'claude-test', messages: [{ role: 'user', content: 'Hi' }], ...extra },
  });

/** Runs `send` and checks that it charged nothing. */
async function nothingCharged(send: () => Promise<Response>): Promise<Response> {
  const before = await balanceMicros(t);
  const res = await send();
  await res.text().catch(() => '');
  expect(await balanceMicros(t)).toBe(before);
  return res;
}

describe('Anthropic upstream errors before the first byte: a clear status, nothing charged', () => {
  test('rate_limit_error (429) with retry-after: 503 at capacity, the upstream wait passed on', async () => {
    up.set({ status: 429, retryAfter: '7' });
    const res = await nothingCharged(() => chat());
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('7');
  });

  test('overloaded_error (529): 503 at capacity, streamed or not', async () => {
    up.set({ status: 529 });
    expect((await nothingCharged(() => chat())).status).toBe(503);
    expect((await nothingCharged(() => chat({ stream: true }))).status).toBe(503);
  });

  test("invalid_request_error (400): 400 with the upstream's reason", async () => {
    up.set({ status: 400 });
    const res = await chat();
    expect(res.status).toBe(400);
    expect((await res.json()).error).toBe('The upstream rejected the request: fixture says invalid_request_error');
  });

  test('no answer within the timeout: 504', async () => {
    up.set({ hang: true });
    expect((await nothingCharged(() => chat())).status).toBe(504);
  });

  test('garbage instead of a message, or instead of a stream: 502', async () => {
    up.set({ garbage: '<html>oops</html>' });
    expect((await nothingCharged(() => chat())).status).toBe(502);
    expect((await nothingCharged(() => chat({ stream: true }))).status).toBe(502);
    up.set({ garbage: 'event: message_start\ndata: {not json\n\n' });
    expect((await nothingCharged(() => chat({ stream: true }))).status).toBe(502);
  });

  test('an overloaded error event before any content (first, after message_start, after the block start): 503, as an error status', async () => {
    for (const errorAfterEvents of [0, 1, 2]) {
      up.set({ errorAfterEvents });
      expect(`${errorAfterEvents}: ${(await nothingCharged(() => chat({ stream: true }))).status}`).toBe(`${errorAfterEvents}: 503`);
    }
  });
  test("an invalid_request_error or request_too_large event before any content: 400 or 413 with the upstream's reason, nothing charged", async () => {
    // An account of its own: the file's other tests share the default key's 20 requests a minute.
    const a = await freshAccount(t);
    const before = await balanceMicros(t, a.adminKey);
    for (const [errorType, status] of [
      ['invalid_request_error', 400],
      ['request_too_large', 413],
      ['api_error', 502],
    ] as const) {
      up.set({ errorAfterEvents: 1, errorType });
      const res = await chat({ stream: true }, a.inferenceKey);
      const body = await res.json();
      expect(`${errorType}: ${res.status}`).toBe(`${errorType}: ${status}`);
      if (status !== 502) expect(body.error).toBe(`The upstream rejected the request: fixture says ${errorType}`);
    }
    expect(await balanceMicros(t, a.adminKey)).toBe(before);
  });
});

describe('Anthropic streams that fail mid-way: an in-band error, charged only for what was delivered', () => {
  for (const [name, behaviour] of [
    ['an overloaded error event', { errorAfterEvents: 5 }],
    ['a cut connection', { cutAfterEvents: 5 }],
  ] as const)
    test(name, async () => {
      up.set(behaviour);
      const before = await balanceMicros(t);
      const res = await chat({ stream: true, stream_options: { include_usage: true } });
      expect(res.status).toBe(200);
      const events = await sseData(res);
      expect(events.at(-1)).toBe('[DONE]');
      expect(events.at(-2)).toMatchObject({ error: { message: expect.any(String) } });
      // The stream was charged before it ended: its usage and cost come ahead of the error.
      const shown = events.find((e) => typeof e === 'object' && (e as { usage?: unknown }).usage) as { cost: { usd: number } };
      expect(events.indexOf(shown)).toBe(events.length - 3);
      const lines = await usageLinesOf(t, res.headers.get('cf-ray')!);
      const output = lines.find((l) => l.sku === 'claude-test-llm-output-mtoken')!;
      // Billed for the text that reached the client before the failure, not the answer's seven tokens.
      const delivered = contentOf(events);
      expect(delivered.length).toBeGreaterThan(0);
      expect(Math.round(output.unit * 1e6)).toBe(textTokens(delivered));
      expect(textTokens(delivered)).toBeLessThan(7);
      const charged = lines.reduce((sum, l) => sum + Math.round(l.amount * 1e6), 0);
      expect(before - (await balanceMicros(t))).toBe(charged);
      expect(Math.round(shown.cost.usd * 1e6)).toBe(charged);
    });
});

describe('requests an Anthropic upstream cannot take: 400 naming the field, nothing sent', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['several choices', { n: 2 }, 'n'],
    [
      'a tool result without its call id',
      {
        messages: [
          { role: 'user', content: 'Hi' },
          { role: 'tool', content: 'x' },
        ],
      },
      'messages.1.tool_call_id',
    ],
    [
      'tool call arguments that are not JSON',
      {
        messages: [
          { role: 'user', content: 'Hi' },
          { role: 'assistant', content: null, tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: '{oops' } }] },
        ],
      },
      'messages.1.tool_calls.0.function.arguments',
    ],
    [
      'an SVG image',
      { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/svg+xml;base64,PHN2Zz4=' } }] }] },
      'messages.0.content.0.image_url',
    ],
    ['a tool that is not a function', { tools: [{ type: 'web_search' }] }, 'tools.0'],
  ];
  for (const [name, body, field] of cases)
    test(name, async () => {
      const before = await balanceMicros(t);
      const res = await chat(body);
      expect(res.status).toBe(400);
      const answer = await res.json();
      expect(answer.error).toContain(`${field}:`);
      let node = answer.details;
      for (const key of field.split('.')) node = node?.[key];
      expect(node?._errors?.length).toBe(1);
      expect(up.requests).toHaveLength(0);
      expect(await balanceMicros(t)).toBe(before);
    });
});

describe('auth and limits in front of an Anthropic upstream', () => {
  test('no key or a wrong key: 401, nothing sent upstream', async () => {
    expect((await chat({}, null)).status).toBe(401);
    expect((await chat({}, 'svc-not-a-key')).status).toBe(401);
    expect(up.requests).toHaveLength(0);
  });

  test('a reservation above the balance: 402; past the tier request limit: 429; neither sent upstream', async () => {
    const a = await freshAccount(t);
    // 400,000 completion tokens at 30 USD / M is 12 USD, above the account's 10.
    expect((await chat({ max_completion_tokens: 400_000 }, a.inferenceKey)).status).toBe(402);
    expect(up.requests).toHaveLength(0);
    // Tier L admits 20 requests a minute; the refused one counted.
    const statuses = await Promise.all(
      Array.from({ length: 19 }, () => chat({ max_completion_tokens: 10 }, a.inferenceKey).then((r) => r.status)),
    );
    expect(statuses).toEqual(Array(19).fill(200));
    const before = await balanceMicros(t, a.adminKey);
    const refused = await chat({}, a.inferenceKey);
    expect(refused.status).toBe(429);
    expect(up.requests).toHaveLength(19);
    expect(await balanceMicros(t, a.adminKey)).toBe(before);
  });
});
