import { useEffect, useMemo, useState } from 'preact/hooks';
import { call, messageOf } from '../api';
import { Alert, DataTable, EmptyRow } from '../parts';
import { download, money, num, when } from '../format';
import { groupByRequest, type Entry, type RequestGroup } from './ledger-groups';
import { accountParam, WINDOW_LABEL, WINDOW_MS, type WindowName } from './usage-data';

/** A page of GET /billing/usage. */
interface EntryPage {
  data: Entry[];
  pagination: { totalPages: number };
}

/** How the ledger names a key and a model (the page's names: key descriptions, catalog names). */
export interface LedgerNames {
  key: (apiKeyId: string | null) => string;
  model: (modelId: string | null) => string;
}

const HEADERS = ['Time', 'Request', 'Key', 'Model', 'SKUs', 'Tokens in → out', 'Amount'];

const PAGE = 50;
/** At most this many pages of 500 in one export (100,000 lines); the CLI or the API pages further. */
const CSV_PAGES = 200;

/**
 * The latest ledger entries of an account (the caller's, or the one the operator picked),
 * 50 lines at a time, one row per request with its key and model, expandable to its SKUs;
 * and a CSV export of every line in the window.
 */
export function LedgerTable({
  accountId,
  window,
  label,
  names,
}: {
  accountId: string | null;
  window: WindowName;
  label: string;
  names: LedgerNames;
}) {
  const [entries, setEntries] = useState<Entry[] | null>(null);
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const groups = useMemo(() => groupByRequest(entries ?? []), [entries]);
  const [more, setMore] = useState(false);
  const [exporting, setExporting] = useState('');
  const [error, setError] = useState('');
  const who = accountParam(accountId);

  useEffect(() => {
    setError('');
    setEntries(null);
    setOpen(new Set());
    call<EntryPage>(`/billing/usage?limit=${PAGE}${who}`)
      .then((r) => (setEntries(r.data), setMore(r.pagination.totalPages > 1)))
      .catch((e) => setError(messageOf(e)));
  }, [accountId, window]);

  async function showMore() {
    const page = Math.floor((entries?.length ?? 0) / PAGE) + 1;
    try {
      const r = await call<EntryPage>(`/billing/usage?limit=${PAGE}&page=${page}${who}`);
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
        const text = await call<string>(`/billing/usage?limit=500&page=${page}&startDate=${encodeURIComponent(since)}${who}`, {
          csv: true,
        });
        const lines = text.replace(/\n$/, '').split('\n');
        parts.push(...(page === 1 ? lines : lines.slice(1)));
        if (lines.length - 1 < 500) break;
      }
      const name = accountId ? `-${accountId.slice(0, 8)}` : '';
      download(`svc-usage${name}-${window}-${new Date().toISOString().slice(0, 10)}.csv`, parts.join('\n') + '\n');
    } catch (e) {
      setError(messageOf(e));
    } finally {
      setExporting('');
    }
  }

  return (
    <>
      <div class="heading-row">
        <h2>Recent ledger entries</h2>
        <button type="button" class="secondary" onClick={exportCsv} disabled={exporting !== ''}>
          {exporting || `Export CSV (${WINDOW_LABEL[window]})`}
        </button>
      </div>
      <Alert message={error} />
      <DataTable caption={`The latest ledger entries of ${label}, one row per request`} headers={HEADERS} id="ledger">
        {groups.map((g) => {
          const expanded = open.has(g.key);
          const toggle = () => setOpen(new Set(expanded ? [...open].filter((k) => k !== g.key) : [...open, g.key]));
          return [
            <tr key={g.key} data-request={g.first.requestId}>
              <td>{when(g.first.timestamp)}</td>
              <td class="mono small request-id">{g.first.requestId}</td>
              <td>{names.key(g.first.apiKeyId)}</td>
              <td>{names.model(g.first.modelId)}</td>
              <td>
                <button
                  type="button"
                  class="secondary small"
                  aria-expanded={expanded}
                  aria-controls={`skus-${g.key}`}
                  aria-label={`${expanded ? 'Hide' : 'Show'} the ${g.lines.length} SKUs of request ${g.first.requestId}`}
                  onClick={toggle}
                >
                  {expanded ? '▾' : '▸'} {g.lines.length} {g.lines.length === 1 ? 'SKU' : 'SKUs'}
                </button>
              </td>
              <td>{tokensOf(g)}</td>
              <td class={g.totals.every(([, v]) => v < 0) ? 'ok' : ''}>{g.totals.map(([c, v]) => money(v, c)).join(' + ')}</td>
            </tr>,
            expanded && (
              <tr key={`${g.key}-skus`} id={`skus-${g.key}`} class="sku-lines">
                <td colSpan={HEADERS.length}>
                  <ul aria-label={`SKUs of request ${g.first.requestId}`}>
                    {g.lines.map((l, i) => (
                      <li key={i}>
                        <span class="mono small">{l.sku}</span>
                        <span>
                          {num(l.unit, 6)} × ${num(l.pricePerUnitUsd, 6)}
                        </span>
                        <span>{money(l.amount, l.currency)}</span>
                        {l.notes && l.notes !== 'API Inference' && <span class="muted">{l.notes}</span>}
                      </li>
                    ))}
                  </ul>
                </td>
              </tr>
            ),
          ];
        })}
        {entries?.length === 0 && <EmptyRow columns={HEADERS.length}>No usage yet.</EmptyRow>}
      </DataTable>
      {more && (
        <button type="button" class="secondary more" onClick={showMore}>
          Show {PAGE} more lines
        </button>
      )}
    </>
  );
}

/** A request's tokens in and out (each line of a charge carries the request's), or a dash. */
function tokensOf(g: RequestGroup): string {
  const d = g.first.inferenceDetails;
  return d?.promptTokens != null ? `${num(d.promptTokens, 0)} → ${num(d.completionTokens ?? 0, 0)}` : '–';
}
