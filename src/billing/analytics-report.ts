import { t, type Static } from 'elysia';
import type { Database } from '../db/database';
import type { ModelCatalog } from '../models/catalog';
import type { ModelType } from '../models/schema';
import type { AnalyticsPeriod } from './analytics-range';
import { microsToNumber } from './money';
import { spendByDay, spendByDayAnd, spendByKey, spendByModelSku, type SpendRow } from './usage-analytics';

/** Models and keys drawn in the daily charts at most (the reference's top 8). */
const TOP = 8;
/** The name of usage without an API key: a wallet's sign-in. */
export const NO_KEY_NAME = 'Wallet sign-in (no API key)';

const Amounts = t.Record(t.String(), t.Number());
const Breakdown = t.Object({ type: t.String(), usd: t.Number(), diem: t.Number(), units: t.Number() });

/** The reference's usage-analytics body, with svc's `totals` per currency. */
export const UsageAnalyticsSchema = t.Object({
  lookback: t.String({ description: '`Nd`, or `startDate:endDate`' }),
  byDate: t.Array(
    t.Object(
      { date: t.String(), USD: t.Number(), DIEM: t.Number() },
      { additionalProperties: t.Number(), description: 'Other currencies (USDC, BUNDLED_CREDITS, VCU) appear when used' },
    ),
    { description: 'Every UTC day of the period, newest first' },
  ),
  byModel: t.Array(
    t.Object({
      modelName: t.String(),
      unitType: t.String(),
      modelType: t.Union([t.String(), t.Null()]),
      totalUsd: t.Number(),
      totalDiem: t.Number(),
      totalUnits: t.Number(),
      breakdown: t.Optional(t.Array(Breakdown)),
    }),
  ),
  byModelDaily: t.Array(Amounts, { description: '`date` (epoch ms of the UTC day) and the spend of each top model' }),
  topModels: t.Array(t.String()),
  byKey: t.Array(
    t.Object({
      apiKeyId: t.Union([t.String(), t.Null()]),
      description: t.String(),
      totalUsd: t.Number(),
      totalDiem: t.Number(),
      totalUnits: t.Number(),
    }),
  ),
  byKeyDaily: t.Array(Amounts),
  topKeyNames: t.Array(t.String()),
  totals: t.Optional(
    t.Record(t.String(), t.Number(), { description: 'svc, with include=totals: the total used per currency over the period' }),
  ),
});

/** A usage-analytics body. */
export type UsageAnalytics = Static<typeof UsageAnalyticsSchema>;

const UNIT_TYPES: Partial<Record<ModelType, string>> = {
  text: 'tokens',
  embedding: 'tokens',
  image: 'images',
  tts: 'chars',
  video: 'seconds',
};
const MODEL_TYPES: Partial<Record<ModelType, string>> = {
  text: 'LLM',
  embedding: 'EMBEDDING',
  image: 'IMAGE',
  tts: 'TTS',
  asr: 'ASR',
  video: 'VIDEO',
};

/** The breakdown label of a SKU: the reference's token types, else the SKU. */
function lineType(sku: string): string {
  if (sku.endsWith('-cache-input-mtoken')) return 'Cache Read';
  if (sku.endsWith('-input-mtoken')) return 'Input';
  if (sku.endsWith('-output-mtoken')) return 'Output';
  return sku;
}

/** Sums spend rows into USD, DIEM and units (other currencies count in `units` only through their rows). */
function totalsOf(rows: SpendRow[]): { usd: number; diem: number; units: number; spend: number } {
  let usd = 0;
  let diem = 0;
  let spend = 0;
  let units = 0;
  for (const r of rows) {
    if (figureOf(r.currency) === 'USD') usd += r.micros;
    if (r.currency === 'DIEM') diem += r.micros;
    spend += r.micros;
    units += Number(r.units);
  }
  return { usd, diem, units, spend };
}

function groupBy<T>(rows: T[], key: (row: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const r of rows) {
    const k = key(r);
    out.set(k, [...(out.get(k) ?? []), r]);
  }
  return out;
}

/** One chart row per day (newest first): `date` in epoch ms and each top group's spend that day. */
function daily(p: AnalyticsPeriod, rows: { day: string; group: string | null; micros: number }[], names: Map<string | null, string>) {
  const byDay = groupBy(rows, (r) => r.day);
  return [...p.days].reverse().map((day) => {
    const spent = new Map<string, number>([...names.values()].map((name) => [name, 0]));
    for (const r of byDay.get(day) ?? []) {
      const name = names.get(r.group);
      if (name !== undefined) spent.set(name, (spent.get(name) ?? 0) + r.micros);
    }
    const entry: Record<string, number> = { date: Date.parse(`${day}T00:00:00Z`) };
    for (const [name, micros] of spent) entry[name] = microsToNumber(micros);
    return entry;
  });
}

/** The reference's USD figure holds a wallet's USDC credit too (both are dollars); `totals` keeps them apart. */
const figureOf = (currency: string) => (currency === 'USDC' ? 'USD' : currency);

/**
 * The usage analytics of an account over a period: five SQL aggregates over the ledger (by
 * day and currency; by model and SKU; by API key; by day and model; by day and key), shaped
 * as the reference's body. Amounts are used micro-units (charges less refunds) as numbers of
 * the currency; USD figures include a wallet's USDC, and `totals` keeps every currency apart.
 */
export async function usageAnalytics(db: Database, models: ModelCatalog, accountId: string, p: AnalyticsPeriod): Promise<UsageAnalytics> {
  const range = { accountId, start: p.start, end: p.end };
  const [days, modelRows, keyRows, modelDays, keyDays] = await Promise.all([
    spendByDay(db, range),
    spendByModelSku(db, range),
    spendByKey(db, range),
    spendByDayAnd(db, range, 'model_key'),
    spendByDayAnd(db, range, 'api_key'),
  ]);

  const totals: Record<string, number> = { USD: 0, DIEM: 0 };
  const perDay = groupBy(days, (r) => r.day);
  const byDate = [...p.days].reverse().map((date) => {
    const used: Record<string, number> = { USD: 0, DIEM: 0 };
    for (const r of perDay.get(date) ?? []) {
      used[figureOf(r.currency)] = (used[figureOf(r.currency)] ?? 0) + r.micros;
      totals[r.currency] = (totals[r.currency] ?? 0) + r.micros;
    }
    const amounts = Object.fromEntries(Object.entries(used).map(([c, m]) => [c, microsToNumber(m)]));
    return { date, USD: amounts.USD as number, DIEM: amounts.DIEM as number, ...amounts };
  });

  const byModel = [...groupBy(modelRows, (r) => r.modelKey)]
    .map(([key, rows]) => {
      const model = models.get(key);
      const sum = totalsOf(rows);
      const lines = [...groupBy(rows, (r) => lineType(r.sku))].map(([type, of]) => {
        const s = totalsOf(of);
        return { type, usd: microsToNumber(s.usd), diem: microsToNumber(s.diem), units: s.units };
      });
      return {
        key,
        spend: sum.spend,
        entry: {
          modelName: model?.name ?? key,
          unitType: model ? (UNIT_TYPES[model.type] ?? 'units') : 'requests',
          modelType: model ? (MODEL_TYPES[model.type] ?? model.type.toUpperCase()) : null,
          totalUsd: microsToNumber(sum.usd),
          totalDiem: microsToNumber(sum.diem),
          totalUnits: sum.units,
          ...(lines.length > 1 ? { breakdown: lines.sort((a, b) => b.usd + b.diem - (a.usd + a.diem)) } : {}),
        },
      };
    })
    .sort((a, b) => b.spend - a.spend);

  const byKey = [...groupBy(keyRows, (r) => r.apiKeyId ?? '')]
    .map(([, rows]) => {
      const first = rows[0] as (typeof rows)[number];
      const sum = totalsOf(rows);
      const description = first.apiKeyId === null ? NO_KEY_NAME : first.description || `Key ${first.apiKeyId.slice(0, 8)}`;
      return {
        spend: sum.spend,
        entry: {
          apiKeyId: first.apiKeyId,
          description,
          totalUsd: microsToNumber(sum.usd),
          totalDiem: microsToNumber(sum.diem),
          totalUnits: sum.units,
        },
      };
    })
    .sort((a, b) => b.spend - a.spend);

  const topModels = new Map(byModel.slice(0, TOP).map((m) => [m.key as string | null, m.entry.modelName]));
  const topKeys = new Map(byKey.slice(0, TOP).map((k) => [k.entry.apiKeyId, k.entry.description]));
  return {
    lookback: p.label,
    byDate,
    byModel: byModel.map((m) => m.entry),
    byModelDaily: daily(p, modelDays, topModels),
    topModels: [...topModels.values()],
    byKey: byKey.map((k) => k.entry),
    byKeyDaily: daily(p, keyDays, topKeys),
    topKeyNames: [...topKeys.values()],
    totals: Object.fromEntries(Object.entries(totals).map(([c, m]) => [c, microsToNumber(m)])),
  };
}
