import { afterAll, beforeAll, expect, test } from 'bun:test';
import { startTestApp, type TestApp } from '../helpers/app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const ask = (model: string, system: string, user: string) =>
  t.request('/chat/completions', {
    method: 'POST',
    json: {
      model,
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: user },
      ],
    },
  });

test('a model with supportsPromptCaching: the second request with the same system prompt reports cached tokens, billed as cache input', async () => {
  const system = 'You review pull requests. Be precise and brief. '.repeat(20);
  const first = await (await ask('qwen3-235b-a22b-thinking-2507', system, 'first')).json();
  expect(first.usage.prompt_tokens_details?.cached_tokens ?? 0).toBe(0);
  const second = await (await ask('qwen3-235b-a22b-thinking-2507', system, 'second, a different question')).json();
  const cached = second.usage.prompt_tokens_details.cached_tokens;
  expect(cached).toBeGreaterThan(200);
  expect(cached).toBeLessThan(second.usage.prompt_tokens);
  const skus = (await (await t.request('/billing/usage-history')).json()).data.map((e: { sku: string }) => e.sku);
  expect(skus).toContain('qwen3-235b-a22b-thinking-2507-llm-cache-input-mtoken');
  const otherSystem = await (await ask('qwen3-235b-a22b-thinking-2507', `${system} Also check the tests.`, 'third')).json();
  expect(otherSystem.usage.prompt_tokens_details?.cached_tokens ?? 0).toBe(0);
});

test('a model without the flag never reports cached tokens, and the catalog says so', async () => {
  for (const user of ['a', 'b']) {
    const body = await (await ask('venice-uncensored', 'Same system prompt every time.', user)).json();
    expect(body.usage.prompt_tokens_details?.cached_tokens ?? 0).toBe(0);
  }
  const models = (await (await t.request('/models')).json()).data as {
    id: string;
    model_spec: { svcCapabilities: Record<string, boolean> };
  }[];
  const flags = (id: string) => models.find((m) => m.id === id)!.model_spec.svcCapabilities;
  expect(flags('venice-uncensored').supportsPromptCaching).toBe(false);
  expect(flags('qwen3-235b-a22b-thinking-2507').supportsPromptCaching).toBe(true);
});

test('a cache_control marker on the system prompt: the first request writes the cache (billed as cache write), the next reads it', async () => {
  const system = [{ type: 'text', text: 'A handbook every request shares. '.repeat(20), cache_control: { type: 'ephemeral' } }];
  const send = (user: string) =>
    t.request('/chat/completions', {
      method: 'POST',
      json: {
        model: 'qwen3-235b-a22b-thinking-2507',
        messages: [
          { role: 'system', content: system },
          { role: 'user', content: user },
        ],
      },
    });
  const first = await send('first');
  const written = (await first.json()).usage.prompt_tokens_details.cache_creation_input_tokens;
  expect(written).toBeGreaterThan(100);
  const second = await (await send('second')).json();
  expect(second.usage.prompt_tokens_details.cached_tokens).toBe(written);
  const lines = (await (await t.request('/billing/usage?limit=500')).json()).data as {
    sku: string;
    unit: number;
    inferenceDetails: { requestId: string };
  }[];
  const write = lines.find((l) => l.inferenceDetails.requestId === first.headers.get('cf-ray') && l.sku.endsWith('-cache-write-mtoken'));
  expect(write?.sku).toBe('qwen3-235b-a22b-thinking-2507-llm-cache-write-mtoken');
  expect(Math.round(write!.unit * 1e6)).toBe(written);
});
