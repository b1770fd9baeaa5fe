import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, streamText } from 'ai';
import OpenAI from 'openai';
import { BACKENDS } from '../helpers/backends';
import { readChatStream, startCacheWorld, type CacheWorld } from './world';

for (const backend of BACKENDS) {
  describe(`response cache, ${backend.name}`, () => {
    let w: CacheWorld;
    beforeAll(async () => {
      w = await startCacheWorld(backend, {
        price: { fraction: 0.5 },
        models: { 'fix-other': 'use' },
        prices: { 'fix-other': { micros: 7 } },
      });
    });
    afterAll(() => w.close());
    beforeEach(() => w.reset());

    test('openai SDK: the same request twice, the second a HIT with no upstream call', async () => {
      const client = new OpenAI({ baseURL: w.base, apiKey: w.t.adminKey, maxRetries: 0 });
      const ask = () =>
        client.chat.completions
          .create({
            model: 'fix-plain',
            messages: [{ role: 'user', content: 'openai sdk' }],
            temperature: 0,
            // @ts-expect-error svc extension of the request body
            svc_parameters: { cache: 'use' },
          })
          .withResponse();
      const first = await ask();
      expect(first.response.headers.get('x-svc-cache')).toBe('MISS');
      const second = await ask();
      expect(second.response.headers.get('x-svc-cache')).toBe('HIT');
      expect(w.calls()).toBe(1);
      expect(second.data.choices[0]!.message.content).toBe(first.data.choices[0]!.message.content);
      expect(second.response.headers.get('x-svc-cache-key')).toMatch(/^[0-9a-f]{64}$/);
      expect(second.response.headers.get('x-svc-cache-key')).toBe(first.response.headers.get('x-svc-cache-key'));
      expect(Number(second.response.headers.get('age'))).toBeGreaterThanOrEqual(0);
      expect(second.data.usage).toMatchObject({ ...first.data.usage, cached: true });
      const echo = (second.data as unknown as { svc_parameters: { cache: unknown } }).svc_parameters.cache;
      expect(echo).toMatchObject({ status: 'hit', key: second.response.headers.get('x-svc-cache-key') });
    });

    test('AI SDK (model suffix cache=use): generateText twice, then streamText of the same prompt, all one upstream call', async () => {
      const provider = createOpenAICompatible({ name: 'svc', baseURL: w.base, apiKey: w.t.adminKey, includeUsage: true });
      const model = provider('fix-plain:cache=use');
      const first = await generateText({ model, prompt: 'ai sdk', temperature: 0 });
      const second = await generateText({ model, prompt: 'ai sdk', temperature: 0 });
      expect(second.text).toBe(first.text);
      expect(second.response.headers?.['x-svc-cache']).toBe('HIT');
      const streamed = streamText({ model, prompt: 'ai sdk', temperature: 0 });
      expect(await streamed.text).toBe(first.text);
      expect((await streamed.response).headers?.['x-svc-cache']).toBe('HIT');
      expect((await streamed.usage).outputTokens).toBe(first.usage.outputTokens);
      expect(w.calls()).toBe(1);
    });

    test('a stored JSON answer replays as a stream (usage chunk, [DONE]) and a stored stream answers JSON', async () => {
      const json = await (await w.chat('json first', { svc_parameters: { cache: 'use' } })).json();
      const res = await w.chat('json first', { stream: true, stream_options: { include_usage: true }, svc_parameters: { cache: 'use' } });
      expect(res.headers.get('x-svc-cache')).toBe('HIT');
      expect(res.headers.get('content-type')).toContain('text/event-stream');
      const replay = await readChatStream(res);
      expect(replay.text).toBe(json.choices[0].message.content);
      expect(replay.chunks).toBeGreaterThan(2);
      expect(replay.usage).toMatchObject({ total_tokens: json.usage.total_tokens });
      expect(replay.done).toBe(true);

      const streamed = await readChatStream(await w.chat('stream first', { stream: true, svc_parameters: { cache: 'use' } }));
      expect(streamed.usage).toBeNull();
      const hit = await w.chat('stream first', { svc_parameters: { cache: 'use' } });
      expect(hit.headers.get('x-svc-cache')).toBe('HIT');
      expect((await hit.json()).choices[0].message.content).toBe(streamed.text);
      expect(w.calls()).toBe(2);
    });

    test('the response-side plugins run over a hit as over the upstream (strip_thinking_response), and a stream hit without include_usage has no usage chunk', async () => {
      w.reset({ tokens: ['<think>', 'hmm', '</think>', 'Otters'] });
      const body = { stream: true, svc_parameters: { cache: 'use', strip_thinking_response: true } };
      const first = await readChatStream(await w.chat('think', body));
      expect(first.text).toBe('Otters');
      const res = await w.chat('think', body);
      expect(res.headers.get('x-svc-cache')).toBe('HIT');
      const replay = await readChatStream(res);
      expect(replay).toMatchObject({ text: 'Otters', usage: null, done: true });
      const raw = await (await w.chat('think', { svc_parameters: { cache: 'use' } })).json();
      expect(raw.choices[0].message.content).toBe('<think>hmm</think>Otters');
      expect(w.calls()).toBe(1);
    });

    test('a tool-call answer is stored and replayed like any other', async () => {
      w.reset({ toolCalls: [{ name: 'lookup', arguments: '{"q":"otters"}' }] });
      const body = {
        tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }],
        svc_parameters: { cache: 'use' },
      };
      const first = await (await w.chat('tools', body)).json();
      const res = await w.chat('tools', body);
      expect(res.headers.get('x-svc-cache')).toBe('HIT');
      expect((await res.json()).choices[0].message.tool_calls).toEqual(first.choices[0].message.tool_calls);
      expect(w.calls()).toBe(1);
    });

    test('/responses is served from the cache too', async () => {
      const ask = () => w.post('/responses', { model: 'fix-plain:cache=use', input: 'responses api', temperature: 0 });
      const first = await ask();
      expect(first.headers.get('x-svc-cache')).toBe('MISS');
      const firstBody = await first.json();
      const second = await ask();
      expect(second.headers.get('x-svc-cache')).toBe('HIT');
      expect((await second.json()).output_text ?? null).toBe(firstBody.output_text ?? null);
      expect(w.calls()).toBe(1);
    });

    test('another account sending the same request gets a MISS, never the first account’s answer', async () => {
      await w.chat('isolated', { svc_parameters: { cache: 'use' } });
      const other = await w.account();
      w.upstream.set({ tokens: ['other', ' answer'] });
      const res = await w.chat('isolated', { svc_parameters: { cache: 'use' } }, { key: other.key });
      expect(res.headers.get('x-svc-cache')).toBe('MISS');
      expect((await res.json()).choices[0].message.content).toBe('other answer');
      const again = await w.chat('isolated', { svc_parameters: { cache: 'use' } });
      expect(again.headers.get('x-svc-cache')).toBe('HIT');
      expect(again.headers.get('x-svc-cache-key')).not.toBe(res.headers.get('x-svc-cache-key'));
      expect((await again.json()).choices[0].message.content).not.toBe('other answer');
      expect(w.calls()).toBe(2);
    });

    test('Cache-Control: no-store leaves nothing; no-cache refreshes; bypass and an unasked request leave the cache alone', async () => {
      const noStore = { headers: { 'cache-control': 'no-store' } };
      expect((await w.chat('no store', { svc_parameters: { cache: 'use' } }, noStore)).headers.get('x-svc-cache')).toBe('MISS');
      expect((await w.chat('no store', { svc_parameters: { cache: 'use' } })).headers.get('x-svc-cache')).toBe('MISS');
      expect(w.calls()).toBe(2);
      const refreshed = await w.chat('no store', { svc_parameters: { cache: 'use' } }, { headers: { 'cache-control': 'no-cache' } });
      expect(refreshed.headers.get('x-svc-cache')).toBe('REFRESH');
      expect((await w.chat('no store', { svc_parameters: { cache: 'bypass' } })).headers.get('x-svc-cache')).toBe('BYPASS');
      const unasked = await w.chat('no store');
      expect(unasked.headers.get('x-svc-cache')).toBeNull();
      expect(w.calls()).toBe(5);
    });

    test('an entry expires after its ttl', async () => {
      const ask = () => w.chat('short lived', { svc_parameters: { cache: { mode: 'use', ttl: 1 } } });
      await ask();
      expect((await ask()).headers.get('x-svc-cache')).toBe('HIT');
      await Bun.sleep(1_300);
      expect((await ask()).headers.get('x-svc-cache')).toBe('MISS');
      expect(w.calls()).toBe(2);
    });

    test('a cut stream is not stored, nor one the client left', async () => {
      w.reset({ tokens: ['a', 'b', 'c', 'd', 'e'], failAfterChunks: 3, chunkDelayMs: 30 });
      const cut = await readChatStream(await w.chat('cut', { stream: true, svc_parameters: { cache: 'use' } }));
      expect(cut.text).toStartWith('a');
      w.reset();
      expect((await w.chat('cut', { svc_parameters: { cache: 'use' } })).headers.get('x-svc-cache')).toBe('MISS');

      w.reset({ tokens: ['a', 'b', 'c', 'd', 'e'], chunkDelayMs: 150 });
      const leaving = new AbortController();
      const res = await w.chat('left', { stream: true, svc_parameters: { cache: 'use' } }, { signal: leaving.signal });
      const reader = res.body!.getReader();
      await reader.read();
      leaving.abort();
      await reader.read().catch(() => null);
      await Bun.sleep(1_200);
      w.reset();
      expect((await w.chat('left', { svc_parameters: { cache: 'use' } })).headers.get('x-svc-cache')).toBe('MISS');
    });

    test('ten concurrent identical misses make one upstream call; all get the answer', async () => {
      w.reset({ headerDelayMs: 400 });
      const all = await Promise.all(Array.from({ length: 10 }, () => w.chat('herd', { svc_parameters: { cache: 'use' } })));
      const statuses = all.map((r) => r.headers.get('x-svc-cache')).sort();
      const texts = await Promise.all(all.map(async (r) => (await r.json()).choices[0].message.content));
      expect(w.calls()).toBe(1);
      expect(statuses.filter((s) => s === 'MISS')).toHaveLength(1);
      expect(statuses.filter((s) => s === 'HIT')).toHaveLength(9);
      expect(new Set(texts).size).toBe(1);
    });

    test('/billing/usage shows the hit on its own SKU at the cache price (half the original here)', async () => {
      const { key } = await w.account();
      const first = await w.chat('billed', { svc_parameters: { cache: 'use' } }, { key });
      const hit = await w.chat('billed', { svc_parameters: { cache: 'use' } }, { key });
      expect(hit.headers.get('x-svc-cache')).toBe('HIT');
      type Entry = { sku: string; amount: number; inferenceDetails: { requestId: string } | null };
      const usage = (await (await fetch(`${w.base}/billing/usage?limit=100`, { headers: { authorization: `Bearer ${key}` } })).json()) as {
        data: Entry[];
      };
      const micros = (res: Response) =>
        usage.data
          .filter((e) => e.inferenceDetails?.requestId === res.headers.get('cf-ray'))
          .map((e) => ({ sku: e.sku, micros: Math.round(e.amount * 1e6) }));
      const original = micros(first).reduce((sum, e) => sum + e.micros, 0);
      expect(original).toBeGreaterThan(0);
      expect(micros(hit)).toEqual([{ sku: 'fix-plain-cache-hit', micros: Math.round(original / 2) }]);
    });

    test('the operator’s default for a model caches requests that did not ask, at its fixed price; /metrics counts by model', async () => {
      const { key } = await w.account();
      const ask = () =>
        w.post('/chat/completions', { model: 'fix-other', messages: [{ role: 'user', content: 'default on' }], temperature: 0 }, { key });
      expect((await ask()).headers.get('x-svc-cache')).toBe('MISS');
      const hit = await ask();
      expect(hit.headers.get('x-svc-cache')).toBe('HIT');
      expect(w.calls()).toBe(1);
      type Entry = { sku: string; amount: number; inferenceDetails: { requestId: string } | null };
      const usage = (await (await fetch(`${w.base}/billing/usage?limit=100`, { headers: { authorization: `Bearer ${key}` } })).json()) as {
        data: Entry[];
      };
      const lines = usage.data.filter((e) => e.inferenceDetails?.requestId === hit.headers.get('cf-ray'));
      expect(lines.map((e) => [e.sku, Math.round(e.amount * 1e6)])).toEqual([['fix-other-cache-hit', 7]]);
      const metrics = await (await w.t.app.handle(new Request('http://localhost/metrics'))).text();
      expect(metrics).toMatch(/svc_plugin_cache_requests_total\{[^}]*model="fix-other"[^}]*status="hit"[^}]*\} [1-9]/);
      expect(metrics).toMatch(/svc_plugin_cache_stores_total\{[^}]*model="fix-other"[^}]*\} [1-9]/);
    });
  });
}
