import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { BACKENDS } from '../helpers/backends';
import { csvEntries, insertLines, startUsageApp, type UsageFixture } from './usage-helpers';

const WARNING = 'This endpoint is deprecated and will be removed in a future release. Use GET /api/v1/billing/usage-history instead, which provides the same data with keyset pagination.';
const T0 = Date.parse('2026-07-01T00:00:00.000Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000);

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
        { accountId: a, at: at(1), amountMicros: -420, notes: 'plain' },
        { accountId: a, at: at(2), amountMicros: -1_500_000, currency: 'DIEM', notes: 'comma, "quote"\nand newline' },
        { accountId: a, at: at(3), amountMicros: 420, kind: 'REFUND', notes: 'refund of a failed request' },
        { accountId: a, at: at(4), amountMicros: -10_000, sku: 'web-search', inference: false },
        { accountId: a, at: at(5), amountMicros: 5_000_000, kind: 'CREDIT', inference: false },
        { accountId: f.otherAccountId, at: at(6), amountMicros: -999 },
      ]);
    });
    afterAll(() => f.t.close());

    const get = (query = '', init: RequestInit & { key?: string | null } = {}) => f.t.request(`/billing/usage${query}`, init);

    test('JSON: newest first, charges and refunds of the caller only, envelope, headers', async () => {
      const res = await get();
      expect(res.status).toBe(200);
      expectDeprecation(res);
      expect(res.headers.get('x-pagination-limit')).toBe('200');
      expect(res.headers.get('x-pagination-page')).toBe('1');
      expect(res.headers.get('x-pagination-total')).toBe('5');
      expect(res.headers.get('x-pagination-total-pages')).toBe('1');
      const body = await res.json();
      expect(body.warningMessage).toBe(WARNING);
      expect(body.pagination).toEqual({ limit: 200, page: 1, total: 5, totalPages: 1 });
      expect(body.data.map((e: { notes: string | null }) => e.notes)).toEqual([null, 'refund of a failed request', 'comma, "quote"\nand newline', 'plain', 'Starting credit'].slice(0, 4).concat([]) as never);
    });
  });
