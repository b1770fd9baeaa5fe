import { useEffect, useState } from 'preact/hooks';
import { call, messageOf } from '../api';
import { Alert, DataTable, EmptyRow } from '../parts';
import { download, money, num, when } from '../format';
import { accountParam, WINDOW_LABEL, WINDOW_MS, type WindowName } from './usage-data';

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

const PAGE = 50;
/** At most this many pages of 500 in one export (100,000 lines); the CLI or the API pages further. */
const CSV_PAGES = 200;

/**
 * The latest ledger entries of an account (the caller's, or the one the operator picked),
 * 50 at a time, and a CSV export of every entry in the window.
 */
export function LedgerTable({ accountId, window, label }: { accountId: string | null; window: WindowName; label: string }) {
  const [entries, setEntries] = useState<Entry[] | null>(null);
  const [more, setMore] = useState(false);
  const [exporting, setExporting] = useState('');
  const [error, setError] = useState('');
  const who = accountParam(accountId);

  useEffect(() => {
    setError('');
    setEntries(null);
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
      <DataTable
        caption={`The latest ledger entries of ${label}`}
        headers={['Time', 'SKU', 'Tokens in → out', 'Amount', 'Request']}
        id="ledger"
      >
        {(entries ?? []).map((e, i) => (
          <tr key={i}>
            <td>{when(e.timestamp)}</td>
            <td class="mono small">{e.sku}</td>
            <td>
              {e.inferenceDetails?.promptTokens != null
                ? `${num(e.inferenceDetails.promptTokens, 0)} → ${num(e.inferenceDetails.completionTokens ?? 0, 0)}`
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
    </>
  );
}
