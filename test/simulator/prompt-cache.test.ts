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
