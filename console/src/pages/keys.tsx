import { useEffect, useRef, useState } from 'preact/hooks';
import { call, messageOf } from '../api';
import { Alert, DataTable, PageHeading, PeriodSelect } from '../parts';
import { exactMoney, money, when } from '../format';
import { SecretOnce } from '../secret-once';
import { GuardrailsCell } from './guardrails-cell';

/** A key as GET /api_keys lists it. */
interface ApiKey {
  id: string;
  apiKeyType: 'ADMIN' | 'INFERENCE';
  description: string;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  last6Chars: string;
  limitPeriod: 'EPOCH' | 'MONTH' | 'LIFETIME';
  consumptionLimits: { usd: number | null; diem: number | null; vcu: number | null };
}

/** A key's spend in micro-units (GET /console/api/key-usage): GET /api_keys rounds it to 4 decimals. */
interface KeyUsage {
  id: string;
  periodMicros: { usd: number; diem: number };
  trailingSevenDaysMicros: { usd: number; diem: number };
}

/** The share of a bar a non-zero use fills at least, so a few cents against $5 still shows. */
const MIN_FILL = 0.02;

const PERIODS = { EPOCH: 'per day', MONTH: 'per month', LIFETIME: 'lifetime' };

/** The API keys page: usage against limits, create (secret shown once), edit, delete. */
export function KeysPage() {
  const [keys, setKeys] = useState<ApiKey[] | null>(null);
  const [usage, setUsage] = useState<Record<string, KeyUsage>>({});
  const [error, setError] = useState('');
  const [secret, setSecret] = useState<{ key: string; description: string } | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<ApiKey | null>(null);

  const load = () =>
    Promise.all([
      call<{ data: ApiKey[] }>('/api_keys').then((r) => setKeys(r.data)),
      call<{ data: KeyUsage[] }>('/console/api/key-usage').then((r) => setUsage(Object.fromEntries(r.data.map((u) => [u.id, u])))),
    ]).catch((e) => setError(messageOf(e)));
  useEffect(() => void load(), []);

  async function create(e: Event) {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const f = new FormData(form);
    const usd = String(f.get('usd') ?? '');
    const expires = String(f.get('expires') ?? '');
    setError('');
    try {
      const r = await call<{ data: { apiKey: string; description: string } }>('/api_keys', {
        method: 'POST',
        json: {
          apiKeyType: f.get('type'),
          description: f.get('description'),
          limitPeriod: f.get('period'),
          ...(usd ? { consumptionLimit: { usd: Number(usd) } } : {}),
          ...(expires ? { expiresAt: expires } : {}),
        },
      });
      form.reset();
      setSecret({ key: r.data.apiKey, description: r.data.description });
      await load();
    } catch (err) {
      setError(messageOf(err));
    }
  }

  return (
    <section aria-labelledby="keys-title">
      <PageHeading id="keys-title">API keys</PageHeading>
      <Alert message={error} />
      {secret && <SecretOnce title={`Key “${secret.description}” created`} secret={secret.key} onDone={() => setSecret(null)} />}
      <details class="panel" open={keys?.length === 0}>
        <summary>Create a key</summary>
        <form class="grid-form" onSubmit={create}>
          <label>
            Description
            <input name="description" required maxLength={64} />
          </label>
          <label>
            Type
            <select name="type">
              <option value="INFERENCE">INFERENCE (inference endpoints only)</option>
              <option value="ADMIN">ADMIN (full access)</option>
            </select>
          </label>
          <label>
            USD limit (empty: none)
            <input name="usd" type="number" min="0" step="0.01" inputMode="decimal" />
          </label>
          <PeriodSelect />
          <label>
            Expires (empty: never)
            <input name="expires" type="date" />
          </label>
          <button type="submit">Create key</button>
        </form>
      </details>
      {keys === null ? (
        <p>Loading…</p>
      ) : (
        <DataTable
          caption="API keys of this account"
          headers={['Description', 'Type', 'Key', 'Usage against limit', 'Guardrails', 'Last used', 'Expires', '']}
        >
          {keys.map((k) =>
            editing === k.id ? (
              <EditRow key={k.id} apiKey={k} onDone={() => (setEditing(null), load())} onError={setError} />
            ) : (
              <tr key={k.id}>
                <td>{k.description}</td>
                <td>
                  <span class={`badge ${k.apiKeyType.toLowerCase()}`}>{k.apiKeyType}</span>
                </td>
                <td class="mono">…{k.last6Chars}</td>
                <td>
                  <UsageBars apiKey={k} usage={usage[k.id]} />
                </td>
                <td>
                  <GuardrailsCell kind="keys" id={k.id} label={k.description} />
                </td>
                <td>{when(k.lastUsedAt)}</td>
                <td>{k.expiresAt ? when(k.expiresAt) : 'never'}</td>
                <td>
                  <div class="actions">
                    <a href={`#/requests?key=${k.id}`} aria-label={`Requests of ${k.description}`}>
                      Requests
                    </a>
                    <button type="button" class="secondary" onClick={() => setEditing(k.id)} aria-label={`Edit ${k.description}`}>
                      Edit
                    </button>
                    <button type="button" class="danger" onClick={() => setDeleting(k)} aria-label={`Delete ${k.description}`}>
                      Delete
                    </button>
                  </div>
                </td>
              </tr>
            ),
          )}
        </DataTable>
      )}
      {deleting && <ConfirmDelete apiKey={deleting} onClose={() => setDeleting(null)} onDeleted={() => (setDeleting(null), load())} />}
    </section>
  );
}

/** Usage in the current limit period against each limit set, as a bar; the 7-day spend otherwise. Amounts exact. */
function UsageBars({ apiKey: k, usage }: { apiKey: ApiKey; usage: KeyUsage | undefined }) {
  const rows = (['usd', 'diem'] as const).filter((c) => k.consumptionLimits[c] !== null);
  if (rows.length === 0) return <span class="muted">no limit · 7 d {exactMoney(usage?.trailingSevenDaysMicros.usd ?? 0)}</span>;
  return (
    <div class="bars">
      {rows.map((c) => {
        const limit = k.consumptionLimits[c] as number;
        const micros = usage?.periodMicros[c] ?? 0;
        const used = micros / 1_000_000;
        const cur = c.toUpperCase();
        const text = `${exactMoney(micros, cur)} of ${money(limit, cur)} ${PERIODS[k.limitPeriod]}`;
        // A bar the width of a pixel reads as empty: any use fills at least MIN_FILL (the text says how much).
        const shown = used > 0 ? Math.max(used, limit * MIN_FILL) : 0;
        return (
          <div key={c} class="bar-row">
            <meter
              min={0}
              max={limit || 1}
              value={shown}
              high={limit * 0.8}
              optimum={0}
              aria-label={`${cur} used of limit`}
              aria-valuetext={text}
            />
            <span>{text}</span>
          </div>
        );
      })}
    </div>
  );
}

/** One key's row as a form: description, limits, period and expiry (PATCH /api_keys). */
function EditRow({ apiKey: k, onDone, onError }: { apiKey: ApiKey; onDone: () => void; onError: (m: string) => void }) {
  async function save(e: Event) {
    e.preventDefault();
    const f = new FormData(e.currentTarget as HTMLFormElement);
    const limit = (name: string) => (String(f.get(name)) === '' ? null : Number(f.get(name)));
    const expires = String(f.get('expires') ?? '');
    try {
      await call('/api_keys', {
        method: 'PATCH',
        json: {
          id: k.id,
          description: f.get('description'),
          consumptionLimit: { usd: limit('usd'), diem: limit('diem') },
          limitPeriod: f.get('period'),
          expiresAt: expires === '' ? null : expires,
        },
      });
      onDone();
    } catch (err) {
      onError(messageOf(err));
    }
  }
  return (
    <tr>
      <td colSpan={8}>
        <form class="grid-form" onSubmit={save} aria-label={`Edit key ${k.description}`}>
          <label>
            Description
            <input name="description" defaultValue={k.description} required maxLength={64} />
          </label>
          <label>
            USD limit
            <input name="usd" type="number" min="0" step="0.01" defaultValue={k.consumptionLimits.usd?.toString() ?? ''} />
          </label>
          <label>
            DIEM limit
            <input name="diem" type="number" min="0" step="0.01" defaultValue={k.consumptionLimits.diem?.toString() ?? ''} />
          </label>
          <PeriodSelect defaultValue={k.limitPeriod} />
          <label>
            Expires
            <input name="expires" type="date" defaultValue={k.expiresAt?.slice(0, 10) ?? ''} />
          </label>
          <div class="actions">
            <button type="submit">Save</button>
            <button type="button" class="secondary" onClick={onDone}>
              Cancel
            </button>
          </div>
        </form>
      </td>
    </tr>
  );
}

/** A modal confirmation (native dialog: focus is trapped and Escape cancels). */
function ConfirmDelete({ apiKey, onClose, onDeleted }: { apiKey: ApiKey; onClose: () => void; onDeleted: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [error, setError] = useState('');
  useEffect(() => dialog.current?.showModal(), []);
  async function remove() {
    try {
      await call(`/api_keys?id=${encodeURIComponent(apiKey.id)}`, { method: 'DELETE' });
      onDeleted();
    } catch (err) {
      setError(messageOf(err));
    }
  }
  return (
    <dialog ref={dialog} onClose={onClose} aria-labelledby="delete-title">
      <h2 id="delete-title">Delete key “{apiKey.description}”?</h2>
      <p>Requests with this key are refused at once, on every instance. This cannot be undone.</p>
      <Alert message={error} />
      <div class="actions">
        <button type="button" class="danger" onClick={remove}>
          Delete key
        </button>
        <button type="button" class="secondary" onClick={() => dialog.current?.close()} autofocus>
          Cancel
        </button>
      </div>
    </dialog>
  );
}
