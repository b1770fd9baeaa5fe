import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createApiKey } from '../../src/auth/api-keys';
import { createAccount } from '../../src/auth/bootstrap';
import { BACKENDS } from '../helpers/backends';
import { csvEntries, insertLines, startUsageApp, type UsageFixture } from './usage-helpers';

const CURSOR_ERROR = 'Invalid or expired cursor; restart from the first page';
const T0 = Date.parse('2026-07-01T00:00:00.000Z');
type Entry = { timestamp: string; amount: number; currency: string; inferenceDetails: { requestId: string } | null };

for (const backend of BACKENDS)
  describe(`GET /billing/usage-history (${backend.name})`, () => {
    let f: UsageFixture;
    beforeAll(async () => {
      f = await startUsageApp(backend);
      // 25 charges; pairs share a timestamp (the id breaks the tie), except that h09, the last
      // line of the first page, is 300 µs after h08: a cursor cut to milliseconds would repeat it.
      const lines = Array.from({ length: 25 }, (_, i) => ({
        accountId: f.accountId,
        at: new Date(T0 + Math.floor(i / 2) * 1000),
        amountMicros: -(i + 1),
        currency: (i % 5 === 0 ? 'DIEM' : 'USD') as 'USD' | 'DIEM',
        requestId: `h${String(i).padStart(2, '0')}`,
      }));
      await insertLines(f.t, lines);
      await insertLines(f.t, [{ accountId: f.otherAccountId, at: new Date(T0), amountMicros: -7 }]);
      const { sql } = await import('drizzle-orm');
      await f.t.deps.storage.db.execute(
        sql`update ledger_entries set created_at = created_at + interval '300 microseconds' where request_id = 'h09'`,
      );
    });
    afterAll(() => f.t.close());

    const get = (query = '', init: RequestInit & { key?: string | null } = {}) => f.t.request(`/billing/usage-history${query}`, init);
    const ids = (data: Entry[]) => data.map((e) => e.inferenceDetails!.requestId);

    async function walk(first: string, accept?: string): Promise<{ pages: Entry[][]; cursors: (string | null)[] }> {
      const pages: Entry[][] = [];
      const cursors: (string | null)[] = [];
      let query = first;
      for (let n = 0; n < 10; n++) {
        const res = await get(query, accept ? { headers: { accept } } : {});
        expect(res.status).toBe(200);
        let next: string | null;
        if (accept) {
          expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename=billing-usage-history-\d{8}T\d{9}Z\.csv$/);
          pages.push(csvEntries(await res.text()) as Entry[]);
          next = res.headers.get('x-next-cursor');
        } else {
          const body = await res.json();
          expect(Object.keys(body).sort()).toEqual(['data', 'nextCursor']);
          pages.push(body.data);
          next = body.nextCursor;
        }
        cursors.push(next);
        if (next === null) break;
        expect(next).toMatch(/^[A-Za-z0-9_-]{1,512}$/);
        query = `?cursor=${next}`;
      }
      return { pages, cursors };
    }

    const ALL = Array.from({ length: 25 }, (_, i) => `h${String(i).padStart(2, '0')}`);

    test('keyset pages in ascending (timestamp, id) order, nextCursor null on the last page', async () => {
      const { pages, cursors } = await walk('?pageSize=10');
      expect(pages.map((p) => p.length)).toEqual([10, 10, 5]);
      expect(cursors[2]).toBeNull();
      expect(ids(pages.flat())).toEqual(ALL);
      expect(pages[0]![0]).toMatchObject({ amount: 0.000001, currency: 'DIEM', timestamp: new Date(T0).toISOString() });
      // Exactly one page when everything fits.
      const { pages: one } = await walk('');
      expect(one.length).toBe(1);
      expect(ids(one[0]!)).toEqual(ALL);
    });

    test('filters travel inside the cursor', async () => {
      const { pages } = await walk(
        `?pageSize=10&currency=USD&startTimestamp=${new Date(T0 + 1000).toISOString()}&endTimestamp=${new Date(T0 + 12_000).toISOString()}`,
      );
      const expected = ALL.filter((_, i) => i % 5 !== 0 && i >= 2 && i < 24);
      expect(ids(pages.flat())).toEqual(expected);
      expect(pages.length).toBe(2);
    });

    test('CSV pages carry x-next-cursor (absent on the last) and match the JSON pages', async () => {
      const csv = await walk('?pageSize=10', 'text/csv');
      const json = await walk('?pageSize=10');
      expect(csv.cursors[2]).toBeNull();
      expect(csv.pages).toEqual(json.pages);
    });

    test('a CSV page over 15 KiB arrives over a socket whole and chunked (one write with its headers)', async () => {
      const db = f.t.deps.storage.db;
      const accountId = await createAccount(db, { creditUsd: '1' });
      const key = (await createApiKey(db, { accountId, type: 'ADMIN' })).secret;
      const rows = Array.from({ length: 300 }, (_, i) => ({
        accountId,
        at: new Date(T0 + i * 1000),
        amountMicros: -(i + 1),
        requestId: `big-${String(i).padStart(3, '0')}`,
      }));
      await insertLines(f.t, rows);
      const server = f.t.app.listen({ port: 0, hostname: '127.0.0.1' });
      try {
        const res = await fetch(`http://127.0.0.1:${server.server!.port}/api/v1/billing/usage-history?pageSize=500`, {
          headers: { accept: 'text/csv', authorization: `Bearer ${key}`, 'accept-encoding': 'identity' },
        });
        expect(res.status).toBe(200);
        expect(res.headers.get('transfer-encoding')).toBe('chunked');
        expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
        expect(res.headers.get('content-disposition')).toStartWith('attachment; filename=billing-usage-history-');
        const text = await res.text();
        expect(Buffer.byteLength(text)).toBeGreaterThan(15 * 1024);
        const entries = csvEntries(text) as Entry[];
        expect(ids(entries)).toEqual(rows.map((r) => r.requestId));
      } finally {
        await server.stop(true);
      }
    });

    test('a continuation sends only the cursor; forged, foreign or malformed cursors are refused', async () => {
      const first = await (await get('?pageSize=10')).json();
      const cursor: string = first.nextCursor;
      const refused = async (query: string, key?: string, name = 'cursor') => {
        const res = await get(query, { key });
        expect(res.status, query).toBe(400);
        const body = await res.json();
        expect(body.error, query).toBe(CURSOR_ERROR);
        expect(body.details[name]._errors.length).toBeGreaterThan(0);
      };
      await refused(`?cursor=${cursor}&pageSize=10`, undefined, 'pageSize');
      await refused(`?cursor=${cursor}&currency=USD`, undefined, 'currency');
      const flipped = cursor.slice(0, 5) + (cursor[5] === 'A' ? 'B' : 'A') + cursor.slice(6);
      await refused(`?cursor=${flipped}`);
      await refused(`?cursor=${cursor.slice(0, -2)}`);
      await refused(`?cursor=${cursor}`, f.otherAdminKey);
      for (const bad of ['not.valid', 'a'.repeat(513), '']) {
        const res = await get(`?cursor=${bad}`);
        expect(res.status, bad).toBe(400);
        expect(JSON.stringify(await res.json())).toContain('cursor');
      }
      // The cursor itself still works.
      expect(ids((await (await get(`?cursor=${cursor}`)).json()).data)).toEqual(ALL.slice(10, 20));
    });

    test('bad inputs: 400 naming the field', async () => {
      const cases: [string, string][] = [
        ['?pageSize=9', 'pageSize'],
        ['?pageSize=1001', 'pageSize'],
        ['?pageSize=ten', 'pageSize'],
        ['?currency=VCU', 'currency'],
        ['?startTimestamp=soon', 'startTimestamp'],
        [`?endTimestamp=${'9'.repeat(41)}`, 'endTimestamp'],
        ['?limit=10', 'limit'],
      ];
      for (const [query, name] of cases) {
        const res = await get(query);
        expect(res.status, query).toBe(400);
        const body = await res.json();
        expect(body.details[name]._errors.length, query).toBeGreaterThan(0);
      }
    });

    test('auth: ADMIN keys only; each account sees its own lines', async () => {
      for (const key of [null, 'bad-key']) expect((await get('', { key })).status).toBe(401);
      expect((await get('', { key: f.inferenceKey })).status).toBe(403);
      const other = await (await get('', { key: f.otherAdminKey })).json();
      expect(other).toEqual({ data: [expect.objectContaining({ amount: 0.000007 })], nextCursor: null });
    });
  });
