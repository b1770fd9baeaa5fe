import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { BACKENDS } from '../helpers/backends';
import { csvEntries, insertLines, startUsageApp, type UsageFixture } from './usage-helpers';

const WARNING =
  'This endpoint is deprecated and will be removed in a future release. Use GET /api/v1/billing/usage-history instead, which provides the same data with keyset pagination.';
const T0 = Date.parse('2026-07-01T00:00:00.000Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);
const details = (requestId: string) => ({ requestId, inferenceExecutionTime: 321, promptTokens: 12, completionTokens: 150 });

function expectDeprecation(res: Response) {
  expect(res.headers.get('deprecation')).toBe('@1783555200');
  expect(res.headers.get('link')).toBe('</api/v1/billing/usage-history>; rel="successor-version"');
}

for (const backend of BACKENDS)
  describe(`GET /billing/usage (${backend.name})`, () => {
    let f: UsageFixture;
    beforeAll(async () => {
      f = await startUsageApp(backend);
      const a = f.accountId;
      await insertLines(f.t, [
        { accountId: a, at: at(1), amountMicros: -420, notes: 'plain', requestId: 'r1' },
        { accountId: a, at: at(2), amountMicros: -1_500_000, currency: 'DIEM', notes: 'comma, "quote"\nand newline', requestId: 'r2' },
        { accountId: a, at: at(3), amountMicros: 420, kind: 'REFUND', notes: 'refund', requestId: 'r1' },
        { accountId: a, at: at(4), amountMicros: -10_000, sku: 'web-search', inference: false, requestId: 'r4' },
        { accountId: a, at: at(5), amountMicros: 5_000_000, kind: 'CREDIT', inference: false },
        { accountId: f.otherAccountId, at: at(6), amountMicros: -999 },
      ]);
    });
    afterAll(() => f.t.close());

    const get = (query = '', init: RequestInit & { key?: string | null } = {}) => f.t.request(`/billing/usage${query}`, init);
    const ALL = [
      {
        timestamp: at(4).toISOString(),
        sku: 'web-search',
        pricePerUnitUsd: 2.8,
        unit: 0.00015,
        amount: 0.01,
        currency: 'USD',
        notes: '',
        inferenceDetails: null,
      },
      {
        timestamp: at(3).toISOString(),
        sku: 'llama-3.3-70b-llm-output-mtoken',
        pricePerUnitUsd: 2.8,
        unit: 0.00015,
        amount: -0.00042,
        currency: 'USD',
        notes: 'refund',
        inferenceDetails: details('r1'),
      },
      {
        timestamp: at(2).toISOString(),
        sku: 'llama-3.3-70b-llm-output-mtoken',
        pricePerUnitUsd: 2.8,
        unit: 0.00015,
        amount: 1.5,
        currency: 'DIEM',
        notes: 'comma, "quote"\nand newline',
        inferenceDetails: details('r2'),
      },
      {
        timestamp: at(1).toISOString(),
        sku: 'llama-3.3-70b-llm-output-mtoken',
        pricePerUnitUsd: 2.8,
        unit: 0.00015,
        amount: 0.00042,
        currency: 'USD',
        notes: 'plain',
        inferenceDetails: details('r1'),
      },
    ];

    // GET /billing/usage adds the line's request, key and model to each entry (the CSV keeps the reference's columns).
    const ADDED = [
      { requestId: 'r4', apiKeyId: null, modelId: null },
      { requestId: 'r1', apiKeyId: null, modelId: 'llama-3.3-70b' },
      { requestId: 'r2', apiKeyId: null, modelId: 'llama-3.3-70b' },
      { requestId: 'r1', apiKeyId: null, modelId: 'llama-3.3-70b' },
    ];
    const JSON_ALL = ALL.map((e, i) => ({ ...e, ...ADDED[i] }));

    test("JSON: newest first, the caller's charges (positive) and refunds (negative), envelope and headers", async () => {
      const res = await get();
      expect(res.status).toBe(200);
      expectDeprecation(res);
      expect([...['limit', 'page', 'total', 'total-pages'].map((h) => res.headers.get(`x-pagination-${h}`))]).toEqual([
        '200',
        '1',
        '4',
        '1',
      ]);
      expect(await res.json()).toEqual({
        warningMessage: WARNING,
        data: JSON_ALL,
        pagination: { limit: 200, page: 1, total: 4, totalPages: 1 },
      });
    });

    test('filters, order and pages', async () => {
      const dates = await (await get(`?startDate=${at(2).toISOString()}&endDate=${at(4).toISOString()}&sortOrder=asc`)).json();
      expect(dates.data).toEqual([JSON_ALL[2], JSON_ALL[1]]);
      expect((await (await get('?currency=DIEM')).json()).data).toEqual([JSON_ALL[2]]);
      const page2 = await get('?limit=3&page=2');
      expect(page2.headers.get('x-pagination-total-pages')).toBe('2');
      expect(await page2.json()).toMatchObject({ data: [JSON_ALL[3]], pagination: { limit: 3, page: 2, total: 4, totalPages: 2 } });
      expect((await (await get('?page=9')).json()).data).toEqual([]);
      expect((await (await get('?startDate=2026-07-01&endDate=2026-07-02')).json()).pagination.total).toBe(4);
    });

    test('CSV: attachment with a header row, RFC 4180 quoting, parses back to the JSON entries', async () => {
      const res = await get('', { headers: { accept: 'text/csv' } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toStartWith('text/csv');
      expect(res.headers.get('content-disposition')).toBe('attachment; filename=billing_usage.csv');
      expect(res.headers.get('x-pagination-total')).toBe('4');
      expectDeprecation(res);
      const text = await res.text();
      expect(text).toStartWith(
        'timestamp,sku,pricePerUnitUsd,unit,amount,currency,notes,requestId,inferenceExecutionTime,promptTokens,completionTokens\r\n',
      );
      expect(text).toContain('"comma, ""quote""\nand newline"');
      expect(text).toContain(',1.500000,DIEM,');
      expect(csvEntries(text)).toEqual(ALL);
    });

    test('bad inputs: 400 naming the field, still with the deprecation headers', async () => {
      const cases: [string, string][] = [
        ['?currency=EUR', 'currency'],
        ['?currency=USDC', 'currency'],
        ['?startDate=yesterday', 'startDate'],
        ['?endDate=2026-13-45', 'endDate'],
        [`?startDate=${at(5).toISOString()}&endDate=${at(1).toISOString()}`, 'startDate'],
        ['?limit=0', 'limit'],
        ['?limit=501', 'limit'],
        ['?limit=abc', 'limit'],
        ['?page=0', 'page'],
        ['?sortOrder=up', 'sortOrder'],
      ];
      for (const [query, name] of cases) {
        const res = await get(query);
        expect(res.status, query).toBe(400);
        expectDeprecation(res);
        const body = await res.json();
        expect(body.error, query).toContain(name);
        expect(body.details[name]._errors.length, query).toBeGreaterThan(0);
      }
    });

    test('auth: ADMIN keys only (401, or 403 for an INFERENCE key, with the deprecation headers)', async () => {
      for (const [key, status] of [
        [null, 401],
        ['bad-key', 401],
        [f.inferenceKey, 403],
      ] as const) {
        const res = await get('', { key });
        expect(res.status).toBe(status);
        expectDeprecation(res);
        expect(Object.keys(await res.json())).toEqual(['error']);
      }
      const other = await (await get('', { key: f.otherAdminKey })).json();
      expect(other.data.map((e: { amount: number }) => e.amount)).toEqual([0.000999]);
    });
  });
