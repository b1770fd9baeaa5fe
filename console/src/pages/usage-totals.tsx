import { DataTable, EmptyRow } from '../parts';
import { money, num } from '../format';
import type { Analytics, SplitBy } from './usage-data';

/**
 * The period's totals per model or per key as usage analytics sums them: units (tokens for
 * token-priced models, else images, characters, seconds or requests) and the amount used in
 * USD and DIEM. The per-day plots have spend only; this is where tokens by model come from it.
 */
export function PeriodTotals({ analytics, by, period }: { analytics: Analytics; by: SplitBy; period: string }) {
  const rows =
    by === 'model'
      ? analytics.byModel.map((m) => ({
          name: m.modelName,
          units: `${num(m.totalUnits, 0)} ${m.unitType}`,
          usd: m.totalUsd,
          diem: m.totalDiem,
        }))
      : analytics.byKey.map((k) => ({ name: k.description, units: num(k.totalUnits, 0), usd: k.totalUsd, diem: k.totalDiem }));
  return (
    <>
      <h2>
        By {by}, {period} (usage analytics)
      </h2>
      <DataTable
        caption={`Usage by ${by} over ${period}`}
        headers={[by === 'model' ? 'Model' : 'Key', 'Units', 'USD', 'DIEM']}
        id="period-totals"
      >
        {rows.map((r) => (
          <tr key={r.name}>
            <td>{r.name}</td>
            <td>{r.units}</td>
            <td>{money(r.usd)}</td>
            <td>{r.diem ? money(r.diem, 'DIEM') : '–'}</td>
          </tr>
        ))}
        {rows.length === 0 && <EmptyRow columns={4}>No usage in this period.</EmptyRow>}
      </DataTable>
    </>
  );
}
