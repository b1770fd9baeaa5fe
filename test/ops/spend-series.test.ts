import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { fixtureModel, fixtureProvider } from '../chat/helpers';
import { startUpstream, type FixtureUpstream } from '../fixtures/openai-upstream';
import { startTestApp, type TestApp } from '../helpers/app';
import { metricsRegistry } from '../../src/metrics';
import { OTHER, startSpendSeries } from '../../src/request-log/spend-series';

/** The spend series of one family now: label value -> amount. */
async function series(name: string, label: string): Promise<Map<string, number>> {
  const metric = metricsRegistry.getSingleMetric(name)!;
  const { values } = await metric.get();
  return new Map(values.map((v) => [String(v.labels[label]), v.value]));
}

describe('spend per key and account in /metrics, bounded', () => {
  test('10,000 keys: at most topN + allow-list + other series, and no amount is lost', async () => {
    const spend = startSpendSeries({ keys: ['listed-key'], accounts: [], topN: 20, intervalMs: 3_600_000 });
    const before = [...(await series('svc_key_spend_micros_total', 'key')).values()].reduce((a, b) => a + b, 0);
    for (let i = 0; i < 10_000; i++) spend.record(`key-${i}`, `account-${i % 3000}`, 'USD', 1 + (i % 7));
    spend.record('listed-key', 'account-0', 'USD', 5);
    // The biggest spender of the interval keeps its series after the rollover.
    spend.record('key-9999', 'account-9', 'USD', 1_000_000);
    spend.rollover();
    for (let i = 0; i < 10_000; i++) spend.record(`key-${i}`, `account-${i % 3000}`, 'USD', 1);
    spend.close();
    const keys = await series('svc_key_spend_micros_total', 'key');
    const accounts = await series('svc_account_spend_micros_total', 'account');
    expect(keys.size).toBeLessThanOrEqual(20 + 1 + 1);
    expect(accounts.size).toBeLessThanOrEqual(20 + 1 + 1);
    expect(keys.has(OTHER)).toBe(true);
    expect(keys.has('listed-key')).toBe(true);
    expect(keys.has('key-9999')).toBe(true);
    const total = [...keys.values()].reduce((a, b) => a + b, 0) - before;
    let expected = 5 + 1_000_000 + 10_000;
    for (let i = 0; i < 10_000; i++) expected += 1 + (i % 7);
    expect(total).toBe(expected);
  });
});

describe('spend series over HTTP', () => {
  let upstream: FixtureUpstream;
  let t: TestApp;
  beforeAll(async () => {
    upstream = startUpstream('sp');
    t = await startTestApp({
      config: {
        providers: [fixtureProvider('sp-up', upstream.url)],
        models: [fixtureModel('sp-model', ['sp-up'])],
        observability: { spendMetrics: { topN: 5 } },
      },
      fetch,
    });
  });
  afterAll(async () => {
    await t.close();
    await upstream.close();
  });

  test("a chat's settled cost shows under its key id and account id in /metrics", async () => {
    const created = await t.request('/api_keys', { method: 'POST', json: { apiKeyType: 'INFERENCE', description: 'sp' } });
    const { apiKey, id } = ((await created.json()) as { data: { apiKey: string; id: string } }).data;
    const res = await t.request('/chat/completions', {
      method: 'POST',
      key: apiKey,
      json: { model: 'sp-model', messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(res.status).toBe(200);
    const text = await (await t.app.handle(new Request('http://localhost/metrics'))).text();
    const line = text.split('\n').find((l) => l.startsWith('svc_key_spend_micros_total{') && l.includes(`key="${id}"`));
    expect(line).toBeDefined();
    expect(Number(line!.split(' ').at(-1))).toBeGreaterThan(0);
    expect(text).toMatch(/svc_account_spend_micros_total\{account="[0-9a-f-]{36}",currency="USD"\} [1-9]/);
  });
});
