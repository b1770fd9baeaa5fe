import type { Line } from '../chart';

/** The windows the Usage page offers. */
export type WindowName = '24h' | '7d' | '30d';
/** How the plots split usage. */
export type SplitBy = 'model' | 'key';

/** The answer of /console/api/usage-series and /console/api/refusals. */
export interface SeriesSet {
  buckets: number[];
  series: { name: string; values: Record<string, number[]> }[];
}

/** The parts of GET /billing/usage-analytics the page reads. */
export interface Analytics {
  byModel: { modelName: string; unitType: string; totalUsd: number; totalDiem: number; totalUnits: number }[];
  byModelDaily: Record<string, number>[];
  topModels: string[];
  byKey: { apiKeyId: string | null; description: string; totalUsd: number; totalDiem: number; totalUnits: number }[];
  byKeyDaily: Record<string, number>[];
  topKeyNames: string[];
  totals?: Record<string, number>;
}

export const WINDOW_LABEL: Record<WindowName, string> = { '24h': '24 h', '7d': '7 days', '30d': '30 days' };
/** The analytics lookback of each window: its UTC days, today included (24 h: today). */
export const LOOKBACK: Record<WindowName, string> = { '24h': '1d', '7d': '7d', '30d': '30d' };
export const WINDOW_MS: Record<WindowName, number> = { '24h': 86_400_000, '7d': 7 * 86_400_000, '30d': 30 * 86_400_000 };
/** Lines a plot draws at most; the rest are summed as "other" (usage analytics itself keeps its top 8). */
const TOP = 6;

/** `&accountId=…` when the operator reads another account, else nothing (the caller's own). */
export const accountParam = (accountId: string | null) => (accountId ? `&accountId=${encodeURIComponent(accountId)}` : '');

/** Lines for the `field` of each series, the top ones by total and the rest summed as "other". */
export function linesOf(set: SeriesSet, field: string, label: (name: string) => string, scale = 1): Line[] {
  const ranked = set.series
    .map((s) => ({ s, total: (s.values[field] ?? []).reduce((a, b) => a + b, 0) }))
    .sort((a, b) => b.total - a.total);
  const lines = ranked.slice(0, TOP).map(({ s }) => ({ label: label(s.name), values: (s.values[field] ?? []).map((v) => v / scale) }));
  const rest = ranked.slice(TOP);
  if (rest.length)
    lines.push({
      label: 'other',
      values: set.buckets.map((_, i) => rest.reduce((n, { s }) => n + (s.values[field]?.[i] ?? 0), 0) / scale),
    });
  return lines;
}

/**
 * Spend per UTC day of the top models or keys, as usage analytics gives it (`byModelDaily`
 * or `byKeyDaily`: one row per day, newest first, `date` in epoch ms): x in epoch seconds,
 * oldest first, one line per name.
 */
export function dailySpend(a: Analytics, by: SplitBy): { times: number[]; lines: Line[] } {
  const rows = [...(by === 'model' ? a.byModelDaily : a.byKeyDaily)].sort((x, y) => (x.date ?? 0) - (y.date ?? 0));
  const names = by === 'model' ? a.topModels : a.topKeyNames;
  return {
    times: rows.map((r) => (r.date ?? 0) / 1000),
    lines: names.map((name) => ({ label: name, values: rows.map((r) => r[name] ?? 0) })),
  };
}
