import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { BACKENDS } from '../helpers/backends';
import { csvEntries, startUsageApp, type UsageFixture } from './usage-helpers';

type Entry = {
  sku: string;
  amount: number;
  currency: string;
  inferenceDetails: { requestId: string; promptTokens?: number; completionTokens?: number } | null;
  requestId?: string;
  apiKeyId?: string;
  modelId?: string;
};

for (const backend of BACKENDS)
  describe(`usage of real chat requests (${backend.name})`, () => {
    let f: UsageFixture;
    const rays: string[] = [];
    beforeAll(async () => {
      f = await startUsageApp(backend);
      for (const stream of [false, true]) {
        const res = await f.t.request('/chat/completions', {
          method: 'POST',
          key: f.inferenceKey,
          json: { model: 'llama-3.3-70b', messages: [{ role: 'user', content: 'Hello there' }], max_tokens: 20, stream },
        });
        expect(res.status).toBe(200);
        await res.text();
        rays.push(res.headers.get('cf-ray')!);
      }
    });
    afterAll(() => f.t.close());

    test('both endpoints list the lines the requests created, JSON and CSV alike', async () => {
      // No explicit flush: the routes flush the meter so a caller reads its own requests.
      const usage = await (await f.t.request('/billing/usage?sortOrder=asc')).json();
      const history = await (await f.t.request('/billing/usage-history')).json();
      // /billing/usage adds requestId, apiKeyId and modelId (its entries are open in the
      // reference); usage-history and the CSV keep the reference's closed shape.
      const asHistory = (usage.data as Entry[]).map(({ requestId: _r, apiKeyId: _k, modelId: _m, ...rest }) => rest);
      for (const e of usage.data as Entry[]) expect(e.requestId).toBe(e.inferenceDetails!.requestId);
      expect(history.data).toEqual(asHistory);
      const data = usage.data as Entry[];
      expect(new Set(data.map((e) => e.inferenceDetails?.requestId))).toEqual(new Set(rays));
      for (const e of data) {
        expect(e.currency).toBe('USD');
        expect(e.sku).toStartWith('llama-3.3-70b-llm-');
        expect(e.amount).toBeGreaterThan(0);
        expect(e.inferenceDetails!.promptTokens).toBeGreaterThan(0);
      }
      const csv = await f.t.request('/billing/usage-history', { headers: { accept: 'text/csv' } });
      expect(csvEntries(await csv.text()) as unknown[]).toEqual(asHistory);
      const csvOld = await f.t.request('/billing/usage?sortOrder=asc', { headers: { accept: 'text/csv' } });
      expect(csvEntries(await csvOld.text()) as unknown[]).toEqual(asHistory);
      // The balance moved by exactly what the entries charged.
      const spent = data.reduce((sum, e) => sum + Math.round(e.amount * 1e6), 0);
      const balance = await (await f.t.request('/billing/balance')).json();
      expect(Math.round(balance.balances.usd * 1e6)).toBe(100_000_000 - spent);
    });
  });
