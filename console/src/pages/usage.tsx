import { useEffect, useMemo, useState } from 'preact/hooks';
import { call, messageOf } from '../api';
import { Alert, DataTable, EmptyRow, PageHeading } from '../parts';
import type { Session } from '../app';
import { TimeChart, type Line } from '../chart';
import { download, money, num, when } from '../format';

type WindowName = '24h' | '7d' | '30d';
/** The answer of /console/api/usage-series and /console/api/refusals. */
interface SeriesSet {
  buckets: number[];
  series: { name: string; values: Record<string, number[]> }[];
}
/** The parts of GET /billing/usage-analytics the page plots. */
interface Analytics {
  byModelDaily: Record<string, number>[];
  topModels: string[];
  byKeyDaily: Record<string, number>[];
  topKeyNames: string[];
  totals?: Record<string, number>;
}
/** A page of GET /billing/usage. */
interface EntryPage {
  data: Entry[];
  pagination: { totalPages: number };
}
interface Entry {
  timestamp: string;
  sku: string;
  amount: number;
  currency: string;
  unit: number;
  notes: string;
  inferenceDetails: { requestId: string; promptTokens: number | null; completionTokens: number | null } | null;
}

const LOOKBACK: Record<WindowName, string> = { '24h': '1d', '7d': '7d', '30d': '30d' };
const WINDOW_MS: Record<WindowName, number> = { '24h': 86_400_000, '7d': 7 * 86_400_000, '30d': 30 * 86_400_000 };
const PAGE = 50;
/** At most this many pages of 500 in one export (100,000 lines); the CLI or the API pages further. */
const CSV_PAGES = 200;
const TOP = 6;
// Significant digits: an hour of test traffic costs millionths of a dollar.
const usd = (v: number) => (v === 0 ? '$0' : `$${Math.abs(v) < 1 ? Number(v.toPrecision(2)) : num(v, 2)}`);
const count = (v: number) => num(v, 0);

/** Lines for the `field` of each series, the top ones by total and the rest summed as "other". */
function linesOf(set: SeriesSet, field: string, label: (name: string) => string, scale = 1): Line[] {
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

/** The usage page: requests, tokens and spend over time by model or key; spend per day; refusals; recent ledger entries with CSV export. */
export function UsagePage({ session }: { session: Session }) {
  const [window, setWindow] = useState<WindowName>('24h');
  const [by, setBy] = useState<'model' | 'key'>('model');
  const [series, setSeries] = useState<SeriesSet | null>(null);
  const [refusals, setRefusals] = useState<SeriesSet | null>(null);
  const [analytics, setAnalytics] = useState<Analytics | null>(null);
  const [entries, setEntries] = useState<Entry[] | null>(null);
  const [more, setMore] = useState(false);
  const [exporting, setExporting] = useState('');
  const [keyNames, setKeyNames] = useState<Record<string, string>>({});
  const [error, setError] = useState('');

  useEffect(() => {
    setError('');
    Promise.all([
      call<{ data: SeriesSet }>(`/console/api/usage-series?window=${window}&by=${by}`).then((r) => setSeries(r.data)),
      call<{ data: SeriesSet }>(`/console/api/refusals?window=${window}`).then((r) => setRefusals(r.data)),
      call<Analytics>(`/billing/usage-analytics?lookback=${LOOKBACK[window]}&include=totals`).then(setAnalytics),
      call<{ data: { id: string; description: string }[] }>('/api_keys').then((r) =>
        setKeyNames(Object.fromEntries(r.data.map((k) => [k.id, k.description]))),
      ),
      call<EntryPage>(`/billing/usage?limit=${PAGE}`).then((r) => (setEntries(r.data), setMore(r.pagination.totalPages > 1))),
    ]).catch((e) => setError(messageOf(e)));
  }, [window, by]);

  const times = useMemo(() => (series?.buckets ?? []).map((t) => t / 1000), [series]);
  const name = (n: string) => (by === 'key' ? (n ? (keyNames[n] ?? n.slice(0, 8)) : 'no key') : n || 'no model');
  const lines = useMemo(
    () =>
      series && {
        requests: linesOf(series, 'requests', name),
        tokens: linesOf(series, 'tokens', name),
        spend: linesOf(series, 'spend', name, 1_000_000),
      },
    [series, keyNames],
  );
  const daily = useMemo(() => {
    if (!analytics) return null;
    const rows = [...analytics.byModelDaily].sort((a, b) => (a.date ?? 0) - (b.date ?? 0));
    const t = rows.map((r) => (r.date ?? 0) / 1000);
    return { t, lines: analytics.topModels.map((m) => ({ label: m, values: rows.map((r) => r[m] ?? 0) })) };
  }, [analytics]);

  async function showMore() {
    const page = Math.floor((entries?.length ?? 0) / PAGE) + 1;
    try {
      const r = await call<EntryPage>(`/billing/usage?limit=${PAGE}&page=${page}`);
      setEntries([...(entries ?? []), ...r.data]);
      setMore(r.pagination.totalPages > page);
    } catch (e) {
      setError(messageOf(e));
    }
  }

  /** Every entry of the window as one CSV, fetched 500 at a time (up to CSV_PAGES pages). */
  async function exportCsv() {
    const since = new Date(Date.now() - WINDOW_MS[window]).toISOString();
    const parts: string[] = [];
    try {
      for (let page = 1; page <= CSV_PAGES; page++) {
        setExporting(`Exporting page ${page}…`);
        const text = await call<string>(`/billing/usage?limit=500&page=${page}&startDate=${encodeURIComponent(since)}`, { csv: true });
        const lines = text.replace(/\n$/, '').split('\n');
        parts.push(...(page === 1 ? lines : lines.slice(1)));
        if (lines.length - 1 < 500) break;
      }
      download(`svc-usage-${window}-${new Date().toISOString().slice(0, 10)}.csv`, parts.join('\n') + '\n');
    } catch (e) {
      setError(messageOf(e));
    } finally {
      setExporting('');
    }
  }

  return (
    <section aria-labelledby="usage-title">
      <PageHeading id="usage-title">Usage</PageHeading>
      <Alert message={error} />
      <div class="toolbar">
        <fieldset>
          <legend>Window</legend>
          {(['24h', '7d', '30d'] as const).map((w) => (
            <label key={w} class="pill">
              <input type="radio" name="window" value={w} checked={window === w} onChange={() => setWindow(w)} />
              {w === '24h' ? '24 h' : w === '7d' ? '7 days' : '30 days'}
            </label>
          ))}
        </fieldset>
        <fieldset>
          <legend>Split by</legend>
          {(['model', 'key'] as const).map((b) => (
            <label key={b} class="pill">
              <input type="radio" name="by" value={b} checked={by === b} onChange={() => setBy(b)} />
              {b}
            </label>
          ))}
        </fieldset>
        {analytics?.totals && (
          <p class="totals" aria-label="Totals over the period">
            Total
            {Object.entries(analytics.totals)
              .filter(([c, v]) => v !== 0 || c === 'USD')
              .map(([c, v]) => (
                <span key={c}>{money(v, c)}</span>
              ))}
          </p>
        )}
      </div>
      {lines && (
        <div class="charts">
          {(['requests', 'tokens'] as const).map((field) => (
            <TimeChart
              key={field}
              title={`${field === 'requests' ? 'Requests' : 'Tokens'} per ${window === '24h' ? 'hour' : 'day'}`}
              times={times}
              lines={lines[field]}
              format={count}
              bars
              integer
            />
          ))}
          <TimeChart title="Spend (USD)" times={times} lines={lines.spend} format={usd} bars />
          {daily && <TimeChart title="Spend per day by model (usage analytics)" times={daily.t} lines={daily.lines} format={usd} bars />}
          {refusals && (
            <TimeChart
              title={
                session.operator
                  ? 'Refused requests, all accounts (rate limits and abuse blocks)'
                  : 'Refused requests (rate limits and abuse blocks)'
              }
              times={refusals.buckets.map((t) => t / 1000)}
              lines={linesOf(refusals, 'refused', (n) => n)}
              format={count}
              bars
              integer
            />
          )}
        </div>
      )}
      <div class="heading-row">
        <h2>Recent ledger entries</h2>
        <button type="button" class="secondary" onClick={exportCsv} disabled={exporting !== ''}>
          {exporting || `Export CSV (${window === '24h' ? '24 h' : window === '7d' ? '7 days' : '30 days'})`}
        </button>
      </div>
      <DataTable
        caption="The latest ledger entries of this account"
        headers={['Time', 'SKU', 'Tokens in → out', 'Amount', 'Request']}
        id="ledger"
      >
        {(entries ?? []).map((e, i) => (
          <tr key={i}>
            <td>{when(e.timestamp)}</td>
            <td class="mono small">{e.sku}</td>
            <td>
              {e.inferenceDetails?.promptTokens != null
                ? `${count(e.inferenceDetails.promptTokens)} → ${count(e.inferenceDetails.completionTokens ?? 0)}`
                : '–'}
            </td>
            <td class={e.amount < 0 ? 'ok' : ''}>{money(e.amount, e.currency)}</td>
            <td class="mono small">{e.inferenceDetails?.requestId ?? e.notes}</td>
          </tr>
        ))}
        {entries?.length === 0 && <EmptyRow columns={5}>No usage yet.</EmptyRow>}
      </DataTable>
      {more && (
        <button type="button" class="secondary more" onClick={showMore}>
          Show {PAGE} more
        </button>
      )}
    </section>
  );
}
