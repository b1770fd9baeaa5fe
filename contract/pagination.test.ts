import { describe, expect, test } from 'bun:test';
import { skipped } from './lib/env';
import { call } from './lib/http';
import { deployment } from './lib/deployment';

const d = await deployment();

describe('pagination walked to the end', () => {
  test('getCharacterReviews: pages of 2 cover the total, none twice', async () => {
    if (!d.characterSlug) return skipped('getCharacterReviews pages', 'no character');
    const seen = new Set<string>();
    let total = -1;
    for (let page = 1; page < 1000; page++) {
      const a = await call(`/characters/${d.characterSlug}/reviews?page=${page}&pageSize=2`);
      expect(a.status).toBe(200);
      const body = a.json as { data: { id: string }[]; pagination: { total: number; totalPages: number } };
      total = body.pagination.total;
      for (const r of body.data) {
        expect(seen.has(r.id)).toBe(false);
        seen.add(r.id);
      }
      if (page >= body.pagination.totalPages) break;
    }
    expect(seen.size).toBe(total);
  });

  test('getBillingUsageHistory: nextCursor pages end with null, entries never repeat', async () => {
    const seen = new Set<string>();
    let cursor: string | null = null;
    for (let i = 0; i < 200; i++) {
      const a = await call(cursor ? `/billing/usage-history?cursor=${encodeURIComponent(cursor)}` : '/billing/usage-history?pageSize=10');
      expect(a.status).toBe(200);
      const body = a.json as { data: Record<string, unknown>[]; nextCursor: string | null };
      for (const e of body.data) {
        const key = JSON.stringify(e);
        expect(seen.has(key)).toBe(false);
        seen.add(key);
      }
      cursor = body.nextCursor;
      if (cursor === null) break;
    }
    expect(cursor).toBeNull();
  });

  test('getBillingUsage: pages of the deprecated list carry the pagination headers', async () => {
    const a = await call('/billing/usage?limit=5&page=1');
    expect(a.status).toBe(200);
    for (const h of ['x-pagination-limit', 'x-pagination-page', 'x-pagination-total', 'x-pagination-total-pages'])
      expect(`getBillingUsage ${h}: ${a.headers.get(h) !== null}`).toBe(`getBillingUsage ${h}: true`);
  });
});

describe('compression', () => {
  for (const [operationId, path] of [
    ['listModels', '/models?type=all'],
    ['openapi.yaml', '/openapi.yaml'],
  ] as const)
    test(`${operationId}: Accept-Encoding gzip, br gives a compressed body`, async () => {
      const a = await call(path, { key: null, headers: { 'accept-encoding': 'gzip, br' }, raw: true });
      expect(`${operationId} ${a.status}`).toBe(`${operationId} 200`);
      expect(`${operationId} content-encoding: ${a.headers.get('content-encoding')}`).toMatch(/content-encoding: (gzip|br)$/);
    });
});
