import { useEffect, useState } from 'preact/hooks';
import { messageOf } from '../api';
import { exactMoney, num, when } from '../format';
import { Alert, DataTable, EmptyRow } from '../parts';
import { requestDetail, statusClass, type RequestDetail } from './requests-data';
import { waterfallOf, type Span } from './waterfall';

/** The timings as bars on one scale (the request's total), each with its value in text. */
function Waterfall({ spans }: { spans: Span[] }) {
  const scale = Math.max(1, ...spans.map((s) => s.start + s.ms));
  return (
    <ol class="waterfall" aria-label="Timings">
      {spans.map((s) => (
        <li key={s.label} data-stage={s.label}>
          <span class="stage">{s.label}</span>
          <span class="track">
            <span class="bar" style={{ left: `${(100 * s.start) / scale}%`, width: `max(2px, ${(100 * s.ms) / scale}%)` }} />
          </span>
          <span class="ms">{num(s.ms, 1)} ms</span>
        </li>
      ))}
    </ol>
  );
}

/** A captured body, with its truncation said. */
function Body({ title, text, truncated }: { title: string; text: string | null; truncated: boolean }) {
  if (text === null) return null;
  return (
    <details>
      <summary>
        {title}
        {truncated ? ' (truncated)' : ''}
      </summary>
      <pre class="body">{text}</pre>
    </details>
  );
}

/** One request of the log: what it was, how it ended, its timings and the ledger rows it settled. */
export function RequestDetailView({ id, onClose }: { id: string; onClose: () => void }) {
  const [r, setR] = useState<RequestDetail | null>(null);
  const [error, setError] = useState('');

  useEffect(() => {
    let stop = false;
    setR(null);
    setError('');
    requestDetail(id)
      .then((d) => !stop && setR(d))
      .catch((e) => !stop && setError(messageOf(e)));
    return () => void (stop = true);
  }, [id]);

  const facts: [string, string][] = r
    ? [
        ['Request id', r.requestId],
        ['Time', when(r.at)],
        ['Route', `${r.method} ${r.route}`],
        ['Model', r.model ?? '–'],
        ['Replica', r.replica ?? '–'],
        ['Account', r.accountId ?? '–'],
        ['Key id', r.apiKeyId ?? '–'],
        ['Stream', r.stream ?? 'not streamed'],
        ['Tokens in / out', `${r.promptTokens ?? '–'} / ${r.completionTokens ?? '–'}`],
        ['Cost', r.costMicros === null ? '–' : exactMoney(r.costMicros, r.currency ?? 'USD')],
        ...(r.cache ? [['Cache', r.cache] as [string, string]] : []),
        ...(r.guardrails ? [['Guardrails', r.guardrails] as [string, string]] : []),
        ['Client', `${r.clientIp ?? '–'} · ${r.userAgent ?? '–'}`],
      ]
    : [];
  return (
    <article class="detail" aria-labelledby="request-detail-title">
      <div class="heading-row">
        <h2 id="request-detail-title">Request {id}</h2>
        <button type="button" class="secondary" onClick={onClose}>
          Close
        </button>
      </div>
      <Alert message={error} />
      {r === null ? (
        !error && <p>Loading…</p>
      ) : (
        <>
          <p>
            Status <strong class={statusClass(r.status)}>{r.status}</strong>
            {r.error && (
              <>
                {' '}
                · <span class="error-text request-error">{r.error}</span>
              </>
            )}
          </p>
          <dl class="facts">
            {facts.map(([k, v]) => (
              <div key={k}>
                <dt>{k}</dt>
                <dd>{v}</dd>
              </div>
            ))}
          </dl>
          <h3>Timings</h3>
          <Waterfall spans={waterfallOf(r)} />
          <h3>Ledger rows</h3>
          <DataTable
            caption="Ledger rows of this request"
            id="request-ledger"
            headers={['Created', 'Currency', 'Model', 'Amount', 'Lines']}
          >
            {r.ledger.map((l, i) => (
              <tr key={i}>
                <td>{when(l.createdAt)}</td>
                <td>{l.currency}</td>
                <td>{l.modelId ?? '–'}</td>
                <td>{exactMoney(l.amountMicros, l.currency)}</td>
                <td class="mono small">{JSON.stringify(l.lines)}</td>
              </tr>
            ))}
            {r.ledger.length === 0 && <EmptyRow columns={5}>Nothing was settled for this request.</EmptyRow>}
          </DataTable>
          {r.bodies && (
            <>
              <h3>Bodies (PII redacted)</h3>
              <Body title="Request body" text={r.bodies.request} truncated={r.bodies.requestTruncated} />
              <Body title="Response body" text={r.bodies.response} truncated={r.bodies.responseTruncated} />
            </>
          )}
        </>
      )}
    </article>
  );
}
