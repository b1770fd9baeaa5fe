import { useEffect, useRef, useState } from 'preact/hooks';
import { messageOf } from '../api';
import { exactMoney, num, shortId } from '../format';
import { Alert, DataTable, EmptyRow, PageHeading } from '../parts';
import { RequestDetailView } from './request-detail';
import { FILTERS, hashOf, listRequests, newerThan, readHash, statusClass, type Filters, type RequestRow } from './requests-data';

const FOLLOW_MS = 3_000;
// Rows kept while following: past them the table starts again from the newest page.
const MAX_ROWS = 500;
// Scrolled this far down the page, one is reading: new rows would move the table under the pointer.
const READING_PX = 200;

const STATUSES = ['2xx', '4xx', '5xx', '429'];

const LABELS: Record<(typeof FILTERS)[number], string> = {
  key: 'Key id',
  account: 'Account id',
  model: 'Model',
  route: 'Route',
  status: 'Status',
  since: 'Since',
  until: 'Until',
  minLatencyMs: 'Min latency (ms)',
  error: 'Error text',
};

/** An input of the filter form. */
function FilterField({ name, value }: { name: (typeof FILTERS)[number]; value: string }) {
  const id = `rq-${name}`;
  const input =
    name === 'status' ? (
      <select id={id} name={name}>
        {/* `selected`, not `defaultValue`: a select has no such property for Preact to set. */}
        {['', ...STATUSES, ...(value && !STATUSES.includes(value) ? [value] : [])].map((s) => (
          <option key={s} value={s} selected={s === value}>
            {s || 'any'}
          </option>
        ))}
      </select>
    ) : (
      <input
        id={id}
        name={name}
        defaultValue={value}
        type={name === 'since' || name === 'until' ? 'datetime-local' : name === 'minLatencyMs' ? 'number' : 'text'}
        min={name === 'minLatencyMs' ? 0 : undefined}
        spellcheck={false}
      />
    );
  return (
    <label for={id}>
      {LABELS[name]}
      {input}
    </label>
  );
}

/**
 * The request log: a filterable table of the newest requests that follows live traffic (new
 * rows at the head every 3 s, paused while one reads further down or asks it to), older pages
 * on demand, and one request's timings and ledger rows when a row is opened.
 */
export function RequestsPage() {
  const [{ filters, id }, setView] = useState(readHash());
  const [rows, setRows] = useState<RequestRow[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState('');
  const [paused, setPaused] = useState(false);
  const [reading, setReading] = useState(false);
  const shown = useRef(rows);
  shown.current = rows;

  // The hash is the page's state: links from the other pages, the back button and the form all go through it.
  useEffect(() => {
    const follow = () => location.hash.startsWith('#/requests') && setView(readHash());
    const scrolled = () => setReading(scrollY > READING_PX);
    addEventListener('hashchange', follow);
    addEventListener('scroll', scrolled, { passive: true });
    return () => (removeEventListener('hashchange', follow), removeEventListener('scroll', scrolled));
  }, []);

  const key = JSON.stringify(filters);
  useEffect(() => {
    let stop = false;
    setRows(null);
    listRequests(filters)
      .then((page) => !stop && (setRows(page.data), setNext(page.next), setError('')))
      .catch((e) => !stop && setError(messageOf(e)));
    return () => void (stop = true);
  }, [key]);

  const following = !paused && !reading && rows !== null;
  useEffect(() => {
    if (!following) return;
    let stop = false;
    const timer = setInterval(async function followHead() {
      const current = shown.current;
      if (!current) return;
      try {
        const head = current[0];
        const fresh = head ? await newerThan(filters, head, new Set(current.map((r) => r.requestId))) : null;
        if (stop || fresh?.rows.length === 0) return;
        if (fresh && !fresh.full && current.length + fresh.rows.length <= MAX_ROWS) return setRows((r) => [...fresh.rows, ...(r ?? [])]);
        // An empty table, a gap past the head's page, or too many rows: start again from the newest page.
        const page = await listRequests(filters);
        if (!stop) (setRows(page.data), setNext(page.next));
      } catch (e) {
        if (!stop) setError(messageOf(e));
      }
    }, FOLLOW_MS);
    return () => ((stop = true), clearInterval(timer));
  }, [following, key]);

  async function older() {
    if (!next) return;
    try {
      const page = await listRequests(filters, next);
      setRows((r) => [...(r ?? []), ...page.data]);
      setNext(page.next);
    } catch (e) {
      setError(messageOf(e));
    }
  }

  function apply(e: Event) {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    const chosen: Filters = {};
    for (const name of FILTERS) {
      const v = String(form.get(name) ?? '').trim();
      if (v) chosen[name] = v;
    }
    location.hash = hashOf(chosen);
  }

  return (
    <section aria-labelledby="requests-title">
      <PageHeading id="requests-title">Requests</PageHeading>
      <form class="filters" onSubmit={apply} key={key} aria-label="Filter requests">
        {FILTERS.map((name) => (
          <FilterField key={name} name={name} value={filters[name] ?? ''} />
        ))}
        <div class="actions">
          <button type="submit">Filter</button>
          <button type="button" class="secondary" onClick={() => (location.hash = '#/requests')}>
            Clear
          </button>
        </div>
      </form>
      <div class="toolbar">
        <p class="muted" role="status">
          {following ? `Following new requests every ${FOLLOW_MS / 1000} s.` : paused ? 'Paused.' : 'Paused while you read further down.'}
        </p>
        <button type="button" class="secondary" onClick={() => setPaused(!paused)} aria-pressed={paused}>
          {paused ? 'Resume' : 'Pause'}
        </button>
      </div>
      <Alert message={error} />
      {id && <RequestDetailView id={id} onClose={() => (location.hash = hashOf(filters))} />}
      {rows === null ? (
        <p>Loading…</p>
      ) : (
        <DataTable
          caption="Requests, newest first"
          id="requests-table"
          headers={['Time', 'Status', 'Route', 'Model', 'Key', 'Latency', 'Cost', 'Error']}
        >
          {rows.map((r) => (
            <tr key={r.requestId} data-request={r.requestId} class={r.requestId === id ? 'selected' : undefined}>
              <td>
                <a href={hashOf(filters, r.requestId)} title={r.requestId}>
                  {r.at.slice(11, 23)}
                </a>
              </td>
              <td class={statusClass(r.status)}>{r.status}</td>
              <td class="mono small">
                {r.method} {r.route}
              </td>
              <td>{r.model ?? '–'}</td>
              <td class="mono" title={r.apiKeyId ?? ''}>
                {r.apiKeyId ? shortId(r.apiKeyId) : '–'}
              </td>
              <td>{num(r.latencyMs, 0)} ms</td>
              <td>{r.costMicros === null ? '–' : exactMoney(r.costMicros, r.currency ?? 'USD')}</td>
              <td class="error-text small">{r.error ?? ''}</td>
            </tr>
          ))}
          {rows.length === 0 && <EmptyRow columns={8}>No requests match.</EmptyRow>}
        </DataTable>
      )}
      {next && (
        <button type="button" class="secondary" onClick={older}>
          Load older
        </button>
      )}
    </section>
  );
}
