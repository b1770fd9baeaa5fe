import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import OpenAI from 'openai';
import { createApiKey } from '../../src/auth/api-keys';
import { createAccount } from '../../src/auth/bootstrap';
import { startWebPages, type WebPages } from '../fixtures/web-pages';
import { startTestApp, type TestApp } from '../helpers/app';
import { BACKENDS } from '../helpers/backends';
import { docx } from './documents';

const µ = (n: number) => Math.round(n * 1e6);

for (const backend of BACKENDS) {
  describe(`paid calls, then GET /billing/usage-analytics against GET /billing/usage, ${backend.name}`, () => {
    let t: TestApp;
    let site: WebPages;
    let key: string;
    beforeAll(async () => {
      site = startWebPages();
      t = await startTestApp({ backend, config: { allowPrivateUrls: true, search: { provider: 'simulated' } } });
      const accountId = await createAccount(t.deps.storage.db, { creditUsd: '10' });
      key = (await createApiKey(t.deps.storage.db, { accountId, type: 'ADMIN', description: 'e2e' })).secret;
    });
    afterAll(async () => {
      await t.close();
      await site.close();
    });

    test('each paid call is one ledger line; the analytics of today equal the usage entries summed', async () => {
      const post = (path: string, init: RequestInit) => t.request(path, { method: 'POST', key, ...init });
      const json = (body: unknown) => ({ body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
      const file = new FormData();
      file.append('file', new File([docx(['Counted once.']) as Uint8Array<ArrayBuffer>], 'a.docx'));
      const calls = [
        await post('/augment/search', json({ query: 'otters' })),
        await post('/augment/search', json({ query: 'kelp' })),
        await post('/augment/scrape', json({ url: `${site.origin}/article` })),
        await post('/augment/text-parser', { body: file }),
      ];
      for (const res of calls) expect(res.status).toBe(200);
      // A chat through the openai SDK adds a model's token lines.
      const client = new OpenAI({
        apiKey: key,
        baseURL: 'http://svc.test/api/v1',
        fetch: (url, init) => t.app.handle(new Request(url, init)),
      });
      const chat = await client.chat.completions.create({ model: 'llama-3.3-70b', messages: [{ role: 'user', content: 'Hello' }] });
      expect(chat.usage?.completion_tokens).toBeGreaterThan(0);

      const usage = await (await t.request('/billing/usage?limit=500', { key })).json();
      const entries = usage.data as {
        sku: string;
        amount: number;
        currency: string;
        timestamp: string;
        inferenceDetails: { requestId: string } | null;
      }[];
      for (const res of calls) {
        const id = res.headers.get('cf-ray');
        expect(entries.filter((e) => e.inferenceDetails?.requestId === id)).toHaveLength(1);
      }
      const today = new Date().toISOString().slice(0, 10);
      const usedToday = entries.filter((e) => e.timestamp.startsWith(today)).reduce((a, e) => a + µ(e.amount), 0);
      expect(usedToday).toBe(
        2 * 10_000 + 5_000 + 1_000 + entries.filter((e) => e.sku.startsWith('llama')).reduce((a, e) => a + µ(e.amount), 0),
      );

      const analytics = await (await t.request('/billing/usage-analytics?lookback=7d&include=totals', { key })).json();
      expect(analytics.byDate).toHaveLength(7);
      expect(analytics.byDate[0].date).toBe(today);
      expect(µ(analytics.byDate[0].USD)).toBe(usedToday);
      expect(µ(analytics.totals.USD)).toBe(usedToday);
      const names = analytics.byModel.map((m: { modelName: string }) => m.modelName);
      expect(names).toEqual(expect.arrayContaining(['augment-web-search', 'augment-web-scrape', 'augment-text-parser']));
      const llm = analytics.byModel.find((m: { modelType: string | null }) => m.modelType === 'LLM');
      expect(llm.totalUnits).toBe(chat.usage!.prompt_tokens + chat.usage!.completion_tokens);
      expect(analytics.byModel.find((m: { modelName: string }) => m.modelName === 'augment-web-search').totalUnits).toBe(2);
      expect(analytics.byKey).toEqual([
        { apiKeyId: expect.any(String), description: 'e2e', totalUsd: analytics.totals.USD, totalDiem: 0, totalUnits: expect.any(Number) },
      ]);
    });
  });
}
