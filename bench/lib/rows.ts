import type { MetricRow } from '../report';
import { ratio, round } from './stats';

/** The backends of a run, for building its rows. */
export interface RowData {
  backends: string[];
}

/** A per-target value: `bare` or `svc:<backend>`. */
export type Pick = (target: string) => number | null | undefined;

/** A row from a per-target value; `check` gives each backend's verdict (svc's value, bare's, their ratio, the backend). */
export function row(
  data: RowData,
  id: string,
  label: string,
  unit: string,
  pick: Pick,
  target = '',
  check?: (svc: number, bare: number | null, ratio: number | null, backend: string) => boolean | null,
): MetricRow {
  const bare = pick('bare') ?? null;
  const svc: Record<string, number | null> = {};
  const ratios: Record<string, number | null> = {};
  const pass: Record<string, boolean | null> = {};
  for (const b of data.backends) {
    const v = pick(`svc:${b}`) ?? null;
    svc[b] = v == null ? null : round(v, 2);
    ratios[b] = ratio(v, bare);
    pass[b] = check && v != null ? check(v, bare, ratios[b] ?? null, b) : null;
  }
  return { id, label, unit, bare: bare == null ? null : round(bare, 2), svc, ratio: ratios, target, pass };
}
