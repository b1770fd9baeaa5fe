import { useEffect, useState } from 'preact/hooks';
import { call, messageOf } from '../api';
import { Alert, DataTable, EmptyRow } from '../parts';
import { money, num } from '../format';
import { accountParam, type WindowName } from './usage-data';
// A row of GET /console/api/cache-savings: the server's own type (type-only, nothing of the server is bundled).
import type { CacheSavings } from '../../../src/console/cache-savings';

const usd = (micros: number | null) => (micros === null ? '–' : money(micros / 1_000_000));

/**
 * The response cache over the period, per model: requests, hits, hit rate, what the hits
 * were charged and what they saved (estimated from the model's other requests: the ledger
 * keeps no original price for a hit).
 */
export function CacheSavingsTable({ accountId, window, period }: { accountId: string | null; window: WindowName; period: string }) {
  const [rows, setRows] = useState<CacheSavings[] | null>(null);
  const [error, setError] = useState('');

  useEffect(() => {
    let current = true;
    setError('');
    call<{ data: CacheSavings[] }>(`/console/api/cache-savings?window=${window}${accountParam(accountId)}`)
      .then((r) => current && setRows(r.data))
      .catch((e) => current && setError(messageOf(e)));
    return () => void (current = false);
  }, [window, accountId]);

  const hits = rows?.reduce((n, r) => n + r.hits, 0) ?? 0;
  const requests = rows?.reduce((n, r) => n + r.requests, 0) ?? 0;
  const saved = rows?.reduce((n, r) => n + (r.savedMicros ?? 0), 0) ?? 0;
  return (
    <>
      <h2>Response cache, {period}</h2>
      <Alert message={error} />
      {rows && rows.length > 0 && (
        <p class="totals" aria-label="Response cache totals">
          <span>
            {num(hits, 0)} hits of {num(requests, 0)} requests ({num((100 * hits) / Math.max(1, requests), 1)} %)
          </span>
          <span>saved about {usd(saved)}</span>
        </p>
      )}
      <DataTable
        caption={`Response cache by model over ${period}`}
        headers={['Model', 'Requests', 'Cache hits', 'Hit rate', 'Charged for hits', 'Saved (est.)']}
        id="cache-savings"
      >
        {(rows ?? []).map((r) => (
          <tr key={r.model}>
            <td>{r.model}</td>
            <td>{num(r.requests, 0)}</td>
            <td>{num(r.hits, 0)}</td>
            <td>{num(100 * r.hitRate, 1)} %</td>
            <td>{usd(r.chargedMicros)}</td>
            <td>{usd(r.savedMicros)}</td>
          </tr>
        ))}
        {rows && rows.length === 0 && <EmptyRow columns={6}>No cache hits in this period.</EmptyRow>}
      </DataTable>
    </>
  );
}
