import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type OpenAI from 'openai';
import type { TestApp } from '../helpers/app';
import { BACKENDS } from '../helpers/backends';
import { startUpstream, type FixtureUpstream } from '../fixtures/openai-upstream';
import { startAnthropicUpstream, type AnthropicFixture } from '../fixtures/anthropic-upstream';
import { balanceMicros, nativeModel, startNativeApp, usageLinesOf } from './helpers';

// The billing paths of this issue (cache lines, a fallback charged at the model used) on each
// backend: the memory KV with PGlite, and Redis with Postgres when DATABASE_URL and REDIS_URL are set.
for (const backend of BACKENDS)
  describe(`cache lines and fallback charges on ${backend.name}`, () => {
    let claude: AnthropicFixture;
    let a: FixtureUpstream;
    let t: TestApp;
    let client: OpenAI;
    beforeAll(async () => {
      claude = startAnthropicUpstream();
      a = startUpstream('a');
      ({ t, client } = await startNativeApp(
        {
          providers: [
            { id: 'claude-up', kind: 'anthropic', baseURL: claude.url, timeoutMs: 1000 },
            { id: 'up-a', kind: 'openai-compatible', baseURL: a.url, timeoutMs: 1000 },
          ],
          models: [
            nativeModel('claude-test', 'claude-up', 'claude-fixture-9'),
            { id: 'cheap', type: 'text', routes: [{ provider: 'up-a' }], pricing: { input: '1', output: '2' }, fallbacks: ['claude-test'] },
          ],
        },
        backend,
      ));
    }, 30_000);
    afterAll(async () => {
      await t.close();
      await claude.close();
      await a.close();
    });

    test('a cache write then a cache read: separate lines at their prices, the balance moved by their sum', async () => {
      const before = await balanceMicros(t);
      const messages: OpenAI.ChatCompletionMessageParam[] = [
        {
          role: 'system',
          content: [{ type: 'text', text: 'Shared.', cache_control: { type: 'ephemeral' } } as OpenAI.ChatCompletionContentPartText],
        },
        { role: 'user', content: 'Q' },
      ];
      const rays: string[] = [];
      for (let i = 0; i < 2; i++) {
        const { response } = await client.chat.completions.create({ model: 'claude-test', messages }).withResponse();
        rays.push(response.headers.get('cf-ray')!);
      }
      const [write, read] = await Promise.all(rays.map((r) => usageLinesOf(t, r)));
      const cacheLine = (lines: typeof write) =>
        lines!.filter((l) => l.sku.includes('-cache-')).map((l) => [l.sku, Math.round(l.amount * 1e6)]);
      expect(cacheLine(write)).toEqual([['claude-test-llm-cache-write-mtoken', 3750]]);
      expect(cacheLine(read)).toEqual([['claude-test-llm-cache-input-mtoken', 300]]);
      const charged = [...write!, ...read!].reduce((sum, l) => sum + Math.round(l.amount * 1e6), 0);
      expect(before - (await balanceMicros(t))).toBe(charged);
    });

    test('a fallback is charged at the prices of the model that answered', async () => {
      a.set({ status: 503 });
      const res = await t.request('/chat/completions', {
        method: 'POST',
        json: { model: 'cheap', messages: [{ role: 'user', content: 'Hi' }] },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-svc-model-id')).toBe('claude-test');
      const lines = await usageLinesOf(t, res.headers.get('cf-ray')!);
      expect(lines.map((l) => l.sku).sort()).toEqual(['claude-test-llm-input-mtoken', 'claude-test-llm-output-mtoken']);
    });
  });
