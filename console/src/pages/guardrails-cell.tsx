import { useEffect, useState } from 'preact/hooks';
import { ApiError, call, messageOf } from '../api';

/** The built-in guardrails an operator can attach (the server's GUARDRAIL_NAMES; a test keeps the two equal). */
export const GUARDRAIL_NAMES = ['pii', 'deny_list', 'limits', 'output_schema', 'webhook'] as const;

/**
 * The Guardrails cell of a key's or an account's row: the guardrails the operator attached
 * (GET /admin/{keys|accounts}/{id}/guardrails), and an Edit that replaces them (PUT). Only the
 * operator may read them: for anyone else (403) the cell stays empty.
 */
export function GuardrailsCell({ kind, id, label }: { kind: 'keys' | 'accounts'; id: string; label: string }) {
  const path = `/admin/${kind}/${encodeURIComponent(id)}/guardrails`;
  const [list, setList] = useState<string[] | null>(null);
  const [hidden, setHidden] = useState(false);
  const [editing, setEditing] = useState(false);
  const [error, setError] = useState('');

  useEffect(() => {
    call<{ data: { guardrails: string[] } }>(path)
      .then((r) => setList(r.data.guardrails))
      .catch((e) => (e instanceof ApiError && e.status === 403 ? setHidden(true) : setError(messageOf(e))));
  }, [path]);

  async function save(e: Event) {
    e.preventDefault();
    const f = new FormData(e.currentTarget as HTMLFormElement);
    setError('');
    try {
      const r = await call<{ data: { guardrails: string[] } }>(path, { method: 'PUT', json: { guardrails: f.getAll('guardrail') } });
      setList(r.data.guardrails);
      setEditing(false);
    } catch (err) {
      setError(messageOf(err));
    }
  }

  if (hidden) return <span class="muted">—</span>;
  if (error && !editing)
    return (
      <span class="muted" role="alert">
        {error}
      </span>
    );
  if (list === null) return <span class="muted">…</span>;
  if (editing)
    return (
      <form class="guardrails-form" onSubmit={save} aria-label={`Guardrails of ${label}`}>
        {GUARDRAIL_NAMES.map((name) => (
          <label key={name} class="check">
            <input type="checkbox" name="guardrail" value={name} defaultChecked={list.includes(name)} /> {name}
          </label>
        ))}
        {error && <span role="alert">{error}</span>}
        <div class="actions">
          <button type="submit">Save</button>
          <button type="button" class="secondary" onClick={() => setEditing(false)}>
            Cancel
          </button>
        </div>
      </form>
    );
  return (
    <div class="guardrails">
      {list.length === 0 ? (
        <span class="muted">none</span>
      ) : (
        list.map((name) => (
          <span key={name} class="badge">
            {name}
          </span>
        ))
      )}{' '}
      <button type="button" class="secondary small" onClick={() => setEditing(true)} aria-label={`Edit guardrails of ${label}`}>
        Edit
      </button>
    </div>
  );
}
