import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { LedgerCharge } from '../../src/billing/ledger-row';
import { writeLedgerBatch } from '../../src/billing/ledger-writer';
import { BACKENDS } from '../helpers/backends';
import { ledgerCharge } from './meter-helpers';
import { insertLines, startUsageApp, type UsageFixture } from './usage-helpers';

// A settlement is one ledger_charges row holding its line items; charges written by earlier
// versions are one ledger_entries row per line. The usage endpoints list both as spec 2.4's
// per-SKU entries, in (time, id, position) order, however a page boundary cuts a charge.
const T0 = Date.parse('2026-08-01T00:00:00.000Z');
type Entry = { timestamp: string; sku: string; amount: number; inferenceDetails: { requestId: string } | null };

/** A charge of `skus.length` lines at `at`; line i costs i + 1 micro-USD more than the first. */
const charge = (accountId: string, requestId: string, at: number, skus: string[], base: number): LedgerCharge =>
  ledgerCharge(
    accountId,
    requestId,
    skus.map((sku, i) => ({ sku, units: '0.000010', pricePerUnitUsd: '0.100000', amount: -(base + i) })),
    { at },
  );

for (const backend of BACKENDS)
  describe(`usage of one-row charges and per-line entries (${backend.name})`, () => {
    let f: UsageFixture;
    /** Every line of the account, oldest first, as `requestId/sku`. */
    const expected: string[] = [];
    beforeAll(async () => {
      f = await startUsageApp(backend);
      // Old per-line charges at seconds 0 and 3, one-row charges at 1, 2 (two at the same
      // instant: the id breaks the tie) and 4, and a credit (not usage) in between.
      await insertLines(f.t, [
        { accountId: f.accountId, at: new Date(T0), amountMicros: -100, requestId: 'old-a', sku: 'old-input' },
        { accountId: f.accountId, at: new Date(T0), amountMicros: -101, requestId: 'old-a', sku: 'old-output' },
        { accountId: f.accountId, at: new Date(T0 + 3000), amountMicros: -102, requestId: 'old-b', sku: 'old-input' },
        { accountId: f.accountId, at: new Date(T0 + 1500), amountMicros: 5_000_000, kind: 'CREDIT', requestId: 'credit', sku: 'credit' },
      ]);
      const charges = [
        charge(f.accountId, 'new-a', T0 + 1000, ['in', 'out', 'search'], 10),
        charge(f.accountId, 'new-b', T0 + 2000, ['in', 'out'], 20),
        charge(f.accountId, 'new-c', T0 + 2000, ['in', 'out', 'cache', 'image'], 30),
        charge(f.accountId, 'new-d', T0 + 4000, ['in'], 40),
        charge(f.otherAccountId, 'other', T0 + 1000, ['in', 'out'], 50),
        // Later single-line charges: past the first page, one table alone fills several pages.
        ...Array.from({ length: 15 }, (_, i) => charge(f.accountId, `late-${i}`, T0 + 5000 + i, ['in'], 60 + i)),
      ];
      expect(await writeLedgerBatch(f.t.deps.storage.db, charges)).toBe(20);
      expected.push('old-a/old-input', 'old-a/old-output');
      for (const sku of ['in', 'out', 'search']) expected.push(`new-a/${sku}`);
      for (const sku of ['in', 'out']) expected.push(`new-b/${sku}`);
      for (const sku of ['in', 'out', 'cache', 'image']) expected.push(`new-c/${sku}`);
      expected.push('old-b/old-input', 'new-d/in');
      for (let i = 0; i < 15; i++) expected.push(`late-${i}/in`);
    });
    afterAll(() => f.t.close());

    const names = (data: Entry[]) => data.map((e) => `${e.inferenceDetails!.requestId}/${e.sku}`);

    test('usage-history: every page size walks every line once, in order, cursors falling inside charges', async () => {
      // 10 is the smallest page: the first cursor falls inside new-c, the second after new-c's last line.
      for (const pageSize of [10, 11, 12, 13, 14]) {
        const seen: string[] = [];
        let query = `?pageSize=${pageSize}`;
        for (let n = 0; n < 20; n++) {
          const res = await f.t.request(`/billing/usage-history${query}`);
          expect(res.status).toBe(200);
          const body = (await res.json()) as { data: Entry[]; nextCursor: string | null };
          expect(body.data.length).toBeLessThanOrEqual(pageSize);
          seen.push(...names(body.data));
          if (body.nextCursor === null) break;
          query = `?cursor=${body.nextCursor}`;
        }
        expect({ pageSize, seen }).toEqual({ pageSize, seen: expected });
      }
    });

    test("a charge's lines carry its request, usage and amounts; the totals count lines", async () => {
      const res = await f.t.request('/billing/usage?limit=500&sortOrder=asc');
      expect(res.status).toBe(200);
      expect(res.headers.get('x-pagination-total')).toBe(String(expected.length));
      const body = (await res.json()) as { data: Entry[] };
      expect(names(body.data)).toEqual(expected);
      const cache = body.data.find((e) => e.inferenceDetails?.requestId === 'new-c' && e.sku === 'cache')!;
      expect(cache).toMatchObject({
        timestamp: new Date(T0 + 2000).toISOString(),
        amount: 0.000032,
        pricePerUnitUsd: 0.1,
        unit: 0.00001,
        currency: 'USD',
        notes: 'API Inference',
        inferenceDetails: { requestId: 'new-c', inferenceExecutionTime: 30, promptTokens: 10, completionTokens: 20 },
      });
    });

    test('usage by page and offset, newest or oldest first, cuts charges at any line', async () => {
      for (const order of ['asc', 'desc'] as const) {
        const all = order === 'asc' ? expected : [...expected].reverse();
        for (const limit of [1, 4, 5]) {
          const seen: string[] = [];
          for (let page = 1; seen.length < all.length && page < 30; page++) {
            const res = await f.t.request(`/billing/usage?limit=${limit}&page=${page}&sortOrder=${order}`);
            expect(res.status).toBe(200);
            seen.push(...names(((await res.json()) as { data: Entry[] }).data));
          }
          expect({ order, limit, seen }).toEqual({ order, limit, seen: all });
        }
      }
    });

    test('a currency or time filter applies to charges as to entries', async () => {
      const res = await f.t.request(
        `/billing/usage?limit=500&sortOrder=asc&startDate=${new Date(T0 + 2000).toISOString()}&endDate=${new Date(T0 + 4000).toISOString()}`,
      );
      expect(names(((await res.json()) as { data: Entry[] }).data)).toEqual(expected.filter((n) => /^(new-b|new-c|old-b)\//.test(n)));
      const diem = await f.t.request('/billing/usage?limit=500&currency=DIEM');
      expect(((await diem.json()) as { data: Entry[] }).data).toEqual([]);
    });
  });
