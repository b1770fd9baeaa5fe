import { writeLedgerBatch } from '../../src/billing/ledger-writer';
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { Elysia } from 'elysia';
import { createApiKey } from '../../src/auth/api-keys';
import { createAccount } from '../../src/auth/bootstrap';
import { eq, sql } from 'drizzle-orm';
import { ledgerCharges, ledgerEntries, usageDaily } from '../../src/db/schema';
import { pipelineStages } from '../../src/gates';
import { requestIdGate } from '../../src/gates/request-id';
import { errorHandler } from '../../src/http/error-handler';
import { usageAnalyticsRoutes } from '../../src/routes/usage-analytics';
import { startTestApp, type TestApp } from '../helpers/app';
import { BACKENDS } from '../helpers/backends';

const NOW = Date.parse('2026-07-10T15:30:00Z');
const DAY = 86_400_000;
const MODEL = 'llama-3.3-70b';
const µ = (n: number) => Math.round(n * 1e6);
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** A seeded ledger row, as the test knows it: what the analytics must sum. */
interface Seed {
  at: number;
  currency: 'USD' | 'DIEM' | 'USDC' | 'BUNDLED_CREDITS';
  keyId: string | null;
  /** [sku, units (decimal string), signed micros] per line. */
  lines: [string, string, number][];
  table: 'charges' | 'entries';
  kind: 'CHARGE' | 'REFUND' | 'CREDIT';
  model: string | null;
}

/** A deterministic pseudo-random sequence (no flaky data). */
function rng(seed: number) {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

/** Seeds: charges with token lines, model-less augment charges, legacy entries, refunds, credits; some outside the window. */
function makeSeeds(keys: (string | null)[]): Seed[] {
  const r = rng(7);
  const seeds: Seed[] = [];
  for (let i = 0; i < 300; i++) {
    const at = NOW - Math.floor(r() * 12 * DAY) + Math.floor(r() * 8 * 3600_000);
    const currency = (['USD', 'USD', 'DIEM', 'USDC', 'BUNDLED_CREDITS'] as const)[Math.floor(r() * 5)]!;
    const keyId = keys[Math.floor(r() * keys.length)]!;
    const kind = r();
    if (kind < 0.6) {
      const input = Math.floor(r() * 5000);
      const output = Math.floor(r() * 900);
      seeds.push({
        at,
        currency,
        keyId,
        table: 'charges',
        kind: 'CHARGE',
        model: MODEL,
        lines: [
          [`${MODEL}-llm-input-mtoken`, (input / 1e6).toFixed(6), -Math.floor(r() * 3000)],
          [`${MODEL}-llm-output-mtoken`, (output / 1e6).toFixed(6), -Math.floor(r() * 9000)],
        ],
      });
    } else if (kind < 0.8)
      seeds.push({ at, currency, keyId, table: 'charges', kind: 'CHARGE', model: null, lines: [['augment-web-search', '1', -10_000]] });
    else if (kind < 0.9)
      seeds.push({
        at,
        currency,
        keyId,
        table: 'entries',
        kind: 'REFUND',
        model: MODEL,
        lines: [[`${MODEL}-llm-output-mtoken`, '0', Math.floor(r() * 500)]],
      });
    else seeds.push({ at, currency, keyId, table: 'entries', kind: 'CREDIT', model: null, lines: [['credit', '0', 5_000_000]] });
  }
  return seeds;
}

let serial = 0;
async function insertSeeds(t: TestApp, accountId: string, seeds: Seed[]) {
  const db = t.deps.storage.db;
  const charges = seeds.filter((s) => s.table === 'charges');
  const entries = seeds.filter((s) => s.table === 'entries');
  // Charges go in through the ledger writer, which keeps usage_daily as it writes them.
  if (charges.length)
    await writeLedgerBatch(
      db,
      charges.map((s) => ({
        requestId: `seed-${++serial}`,
        accountId,
        apiKeyId: s.keyId,
        currency: s.currency,
        modelId: s.model,
        lines: s.lines.map(([sku, units, amount]) => ({ sku, units, pricePerUnitUsd: '1', amount })),
        amount: s.lines.reduce((a, [, , m]) => a + m, 0),
        promptTokens: 0,
        completionTokens: 0,
        executionMs: 0,
        at: s.at,
      })),
    );
  if (entries.length)
    await db.insert(ledgerEntries).values(
      entries.map((s) => ({
        requestId: `seed-${++serial}`,
        accountId,
        apiKeyId: s.keyId,
        kind: s.kind,
        currency: s.currency,
        sku: s.lines[0]![0],
        modelId: s.model,
        units: s.lines[0]![1],
        amountMicros: s.lines[0]![2],
        createdAt: new Date(s.at),
      })),
    );
}

/** What the analytics must say, summed here in plain code from the seeds (micro-units). */
function expected(seeds: Seed[], start: number, end: number) {
  const byDate = new Map<string, Record<string, number>>();
  const byModel = new Map<string, { usd: number; diem: number; units: number }>();
  const byKey = new Map<string | null, { usd: number; diem: number; units: number }>();
  const totals: Record<string, number> = {};
  for (const s of seeds) {
    if (s.kind === 'CREDIT' || s.at < start || s.at >= end) continue;
    const figure = s.currency === 'USDC' ? 'USD' : s.currency;
    for (const [sku, units, amount] of s.lines) {
      const used = -amount;
      const d = byDate.get(day(s.at)) ?? {};
      d[figure] = (d[figure] ?? 0) + used;
      byDate.set(day(s.at), d);
      totals[s.currency] = (totals[s.currency] ?? 0) + used;
      const u = sku.endsWith('-mtoken') ? Math.round(Number(units) * 1e6) : Number(units);
      for (const [map, k] of [
        [byModel, s.model ?? sku],
        [byKey, s.keyId],
      ] as const) {
        const m = (map as Map<string | null, { usd: number; diem: number; units: number }>).get(k) ?? { usd: 0, diem: 0, units: 0 };
        if (figure === 'USD') m.usd += used;
        if (figure === 'DIEM') m.diem += used;
        m.units += u;
        (map as Map<string | null, { usd: number; diem: number; units: number }>).set(k, m);
      }
    }
  }
  return { byDate, byModel, byKey, totals };
}

for (const backend of BACKENDS) {
  describe(`GET /billing/usage-analytics on ${backend.name}`, () => {
    let t: TestApp;
    let accountId: string;
    let key: string;
    let otherAdmin: string;
    let keyIds: string[];
    let seeds: Seed[];
    beforeAll(async () => {
      t = await startTestApp({ backend, now: () => NOW });
      const db = t.deps.storage.db;
      accountId = await createAccount(db, { creditUsd: '1' });
      const prod = await createApiKey(db, { accountId, type: 'INFERENCE', description: 'Production' });
      const batch = await createApiKey(db, { accountId, type: 'ADMIN', description: 'Batch jobs' });
      key = prod.secret;
      keyIds = [prod.row.id, batch.row.id];
      const other = await createAccount(db, { creditUsd: '1' });
      otherAdmin = (await createApiKey(db, { accountId: other, type: 'ADMIN' })).secret;
      seeds = makeSeeds([prod.row.id, batch.row.id, null]);
      await insertSeeds(t, accountId, seeds);
      // Another account's usage never shows.
      await insertSeeds(t, other, makeSeeds([null]).slice(0, 40));
    });
    afterAll(() => t.close());

    const get = async (query: string, k: string | null = key) => t.request(`/billing/usage-analytics${query}`, { key: k });

    test('lookback=7d: by day, model, key and currency, equal to sums computed from the seeded ledger', async () => {
      const res = await get('?lookback=7d&include=totals');
      expect(res.status).toBe(200);
      const body = await res.json();
      // Without include=totals the body is exactly the reference's (no totals).
      expect((await (await get('?lookback=7d')).json()).totals).toBeUndefined();
      const start = Date.parse(`${day(NOW - 6 * DAY)}T00:00:00Z`);
      const want = expected(seeds, start, start + 7 * DAY);
      expect(body.lookback).toBe('7d');
      expect(body.byDate.map((d: { date: string }) => d.date)).toEqual([0, 1, 2, 3, 4, 5, 6].map((i) => day(NOW - i * DAY)));
      for (const d of body.byDate) {
        const w = want.byDate.get(d.date) ?? {};
        expect({ USD: µ(d.USD), DIEM: µ(d.DIEM), BUNDLED_CREDITS: µ(d.BUNDLED_CREDITS ?? 0) }).toEqual({
          USD: w.USD ?? 0,
          DIEM: w.DIEM ?? 0,
          BUNDLED_CREDITS: w.BUNDLED_CREDITS ?? 0,
        });
      }
      expect(Object.fromEntries(Object.entries(body.totals).map(([c, v]) => [c, µ(v as number)]))).toEqual({
        USD: 0,
        DIEM: 0,
        ...want.totals,
      });
      const llama = body.byModel.find((m: { modelName: string }) => m.modelName !== 'augment-web-search');
      expect(llama).toMatchObject({ unitType: 'tokens', modelType: 'LLM' });
      expect(llama.breakdown.map((b: { type: string }) => b.type).sort()).toEqual(['Input', 'Output']);
      const search = body.byModel.find((m: { modelName: string }) => m.modelName === 'augment-web-search');
      expect(search).toMatchObject({ unitType: 'requests', modelType: null });
      expect(search.breakdown).toBeUndefined();
      for (const [k, m] of [
        [MODEL, llama],
        ['augment-web-search', search],
      ] as const) {
        const w = want.byModel.get(k)!;
        expect({ usd: µ(m.totalUsd), diem: µ(m.totalDiem), units: m.totalUnits }).toEqual(w);
      }
      expect(body.byKey).toHaveLength(3);
      for (const k of body.byKey) {
        const w = want.byKey.get(k.apiKeyId)!;
        expect({ usd: µ(k.totalUsd), diem: µ(k.totalDiem), units: k.totalUnits }).toEqual(w);
      }
      expect(body.byKey.map((k: { description: string }) => k.description).sort()).toEqual(
        ['Batch jobs', 'Production', 'Wallet sign-in (no API key)'].sort(),
      );
      const spend = (k: { totalUsd: number; totalDiem: number }) => k.totalUsd + k.totalDiem;
      expect(body.byKey.map(spend)).toEqual([...body.byKey.map(spend)].sort((a, b) => b - a));
      expect(body.topKeyNames).toEqual(body.byKey.map((k: { description: string }) => k.description));
      expect(body.topModels).toEqual(body.byModel.map((m: { modelName: string }) => m.modelName));
      expect(body.byModelDaily).toHaveLength(7);
      expect(body.byModelDaily[0].date).toBe(Date.parse(`${day(NOW)}T00:00:00Z`));
      expect(keyIds).toContain(body.byKey.find((k: { apiKeyId: string | null }) => k.apiKeyId)?.apiKeyId);
    });

    test('startDate/endDate: inclusive UTC days, checked against the seeds', async () => {
      const [from, to] = [day(NOW - 11 * DAY), day(NOW - 9 * DAY)];
      const res = await get(`?startDate=${from}&endDate=${to}`);
      expect(res.status).toBe(200);
      const body = await res.json();
      expect(body.lookback).toBe(`${from}:${to}`);
      const want = expected(seeds, Date.parse(`${from}T00:00:00Z`), Date.parse(`${to}T00:00:00Z`) + DAY);
      expect(body.byDate).toHaveLength(3);
      for (const d of body.byDate) expect(µ(d.USD)).toBe(want.byDate.get(d.date)?.USD ?? 0);
    });

    test.each([
      ['?lookback=0d', 'lookback'],
      ['?lookback=abc', 'lookback'],
      ['?lookback=7', 'lookback'],
      ['?lookback=91d', 'lookback'],
      ['?lookback=-1d', 'lookback'],
      ['?startDate=2026-07-01', 'endDate'],
      ['?endDate=2026-07-01', 'startDate'],
      ['?startDate=2026-07-05&endDate=2026-07-01', 'endDate'],
      ['?startDate=2025-01-01&endDate=2026-07-01', 'endDate'],
      ['?startDate=2026-02-31&endDate=2026-03-02', 'startDate'],
      ['?startDate=20260701&endDate=2026-07-02', 'startDate'],
      ['?lookback=7d&startDate=2026-07-01&endDate=2026-07-02', 'lookback'],
      ['?accountId=not-a-uuid', 'accountId'],
    ])('%s is a 400 naming %s', async (query, field) => {
      const res = await get(query);
      expect(res.status).toBe(400);
      const body = await res.json();
      expect(body.error).toContain(field);
      expect(body.details[field]).toBeDefined();
    });

    test("each account sees its own; only the operator's ADMIN key reads another account", async () => {
      expect((await get('', null)).status).toBe(401);
      const own = await (await get('', otherAdmin)).json();
      expect(own.byKey.map((k: { apiKeyId: string | null }) => k.apiKeyId)).toEqual([null]);
      expect((await get(`?accountId=${accountId}`, otherAdmin)).status).toBe(403);
      const asOperator = await get(`?accountId=${accountId}`, t.adminKey);
      expect(asOperator.status).toBe(200);
      expect(await asOperator.json()).toEqual(await (await get('')).json());
    });

    test("the daily rollup follows the ledger: deleting an account's ledger rows brings its sums to zero", async () => {
      const db = t.deps.storage.db;
      const gone = await createAccount(db, { creditUsd: '1' });
      await insertSeeds(t, gone, makeSeeds([null]).slice(0, 30));
      const sum = async () =>
        (
          await db
            .select({ n: sql<string>`coalesce(sum(amount_micros), 0)::text` })
            .from(usageDaily)
            .where(eq(usageDaily.accountId, gone))
        )[0]!.n;
      expect(await sum()).not.toBe('0');
      await db.delete(ledgerCharges).where(eq(ledgerCharges.accountId, gone));
      await db.delete(ledgerEntries).where(eq(ledgerEntries.accountId, gone));
      expect(await sum()).toBe('0');
    });

    test('a query slower than the time limit is a 504 with an error', async () => {
      const stuck = {
        ...t.deps,
        storage: { ...t.deps.storage, db: { execute: () => new Promise(() => {}) } },
      } as unknown as TestApp['deps'];
      const app = new Elysia()
        .use(requestIdGate)
        .use(errorHandler(t.deps.log))
        .use(new Elysia({ prefix: '/api/v1' }).use(usageAnalyticsRoutes(stuck, pipelineStages(t.deps, undefined), 50)));
      const res = await app.handle(
        new Request('http://localhost/api/v1/billing/usage-analytics?lookback=7d', { headers: { authorization: `Bearer ${key}` } }),
      );
      expect(res.status).toBe(504);
      expect((await res.json()).error).toContain('Query timed out');
    });
  });
}
