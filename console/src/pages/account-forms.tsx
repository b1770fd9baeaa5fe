import { useState } from 'preact/hooks';
import { call, messageOf } from '../api';
import { money, shortId } from '../format';
import { Alert } from '../parts';
import { SecretOnce } from '../secret-once';
import type { Account } from './accounts';

const CURRENCIES = ['USD', 'DIEM', 'VCU', 'BUNDLED_CREDITS', 'USDC'];
const OVERRIDES_EXAMPLE = '{ "text": { "L": { "rpm": 100 } }, "image": 100, "models": { "<model id>": { "rpm": 200, "tpm": 3000000 } } }';

/**
 * Creates an account with one ADMIN key and no credit (POST /admin/accounts): lasting, or a
 * scratch account, which `npm run admin -- accounts delete` removes with everything it holds.
 * The key's secret is shown once; the table reloads to list the account, to be credited there.
 */
export function CreateAccountForm({ onCreated }: { onCreated: () => void }) {
  const [created, setCreated] = useState<{ name: string; secret: string } | null>(null);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  async function submit(e: Event) {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const f = new FormData(form);
    const name = String(f.get('name') ?? '').trim();
    setBusy(true);
    setError('');
    try {
      const r = await call<{ data: { id: string; apiKey: { apiKey: string } } }>('/admin/accounts', {
        method: 'POST',
        json: { scratch: f.get('scratch') === 'on', ...(name ? { displayName: name } : {}) },
      });
      setCreated({ name: name || shortId(r.data.id), secret: r.data.apiKey.apiKey });
      form.reset();
      onCreated();
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <>
      {created && (
        <SecretOnce title={`Account “${created.name}” created: its ADMIN key`} secret={created.secret} onDone={() => setCreated(null)} />
      )}
      <form class="grid-form" onSubmit={submit} aria-label="Create an account">
        <label>
          Name
          <input name="name" maxLength={100} placeholder="optional" />
        </label>
        <label class="inline">
          <input name="scratch" type="checkbox" />
          Scratch account (deletable with everything it holds)
        </label>
        <button type="submit" disabled={busy}>
          Create account
        </button>
        <p class="muted small">It starts with no credit and one ADMIN key, shown once; credit it from its row below.</p>
        <Alert message={error} />
      </form>
    </>
  );
}

/**
 * Credits one account. The idempotency key is made when the form opens and kept until the
 * credit succeeds, so a retried submit (a timeout, a double click) is applied once; then a new
 * one is made for the next credit. The form stays open with the result (the operator closes it
 * with the row's Credit button) while the table reloads to show the new balance.
 */
export function CreditForm({ account, onCredited }: { account: Account; onCredited: () => void }) {
  const [idempotencyKey, setIdempotencyKey] = useState(() => crypto.randomUUID());
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState('');

  async function submit(e: Event) {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const f = new FormData(form);
    setBusy(true);
    setError('');
    setResult('');
    try {
      const notes = String(f.get('notes') ?? '');
      const r = await call<{ data: { applied: boolean; balance: number; currency: string } }>(`/admin/accounts/${account.id}/credits`, {
        method: 'POST',
        json: { currency: f.get('currency'), amount: String(f.get('amount')), idempotencyKey, ...(notes ? { notes } : {}) },
      });
      setResult(`${r.data.applied ? 'Credited' : 'Already applied'}: balance now ${money(r.data.balance, r.data.currency)}`);
      setIdempotencyKey(crypto.randomUUID());
      form.reset();
      onCredited();
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form class="grid-form" onSubmit={submit} aria-label={`Credit account ${shortId(account.id)}`}>
      <label>
        Currency
        <select name="currency">
          {CURRENCIES.map((c) => (
            <option key={c}>{c}</option>
          ))}
        </select>
      </label>
      <label>
        Amount
        <input name="amount" required inputMode="decimal" pattern="\d+(\.\d{1,6})?" title="A positive amount, at most 6 decimals" />
      </label>
      <label>
        Notes
        <input name="notes" maxLength={500} />
      </label>
      <button type="submit" disabled={busy}>
        Credit account
      </button>
      <p class="muted small">Idempotency key {idempotencyKey}</p>
      {result && (
        <p class="ok" role="status">
          {result}
        </p>
      )}
      <Alert message={error} />
    </form>
  );
}

/**
 * Edits an account's rate-limit overrides as JSON (PUT /admin/accounts/{id}/rate_limits): the
 * server checks them and names each bad field; "Remove overrides" goes back to the tier's table.
 */
export function OverridesForm({ account, onDone }: { account: Account; onDone: () => void }) {
  const [text, setText] = useState(() => JSON.stringify(account.rateLimitOverrides ?? {}, null, 2));
  const [error, setError] = useState('');

  async function save(overrides: unknown) {
    setError('');
    try {
      await call(`/admin/accounts/${account.id}/rate_limits`, { method: 'PUT', json: { overrides } });
      onDone();
    } catch (err) {
      setError(messageOf(err));
    }
  }
  function submit(e: Event) {
    e.preventDefault();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      setError('overrides: not valid JSON');
      return;
    }
    void save(parsed);
  }

  return (
    <form class="stack-form" onSubmit={submit} aria-label={`Rate-limit overrides of account ${shortId(account.id)}`}>
      <label>
        Rate-limit overrides (JSON)
        <textarea
          class="mono"
          rows={6}
          value={text}
          onInput={(e) => setText((e.currentTarget as HTMLTextAreaElement).value)}
          spellcheck={false}
        />
      </label>
      <p class="muted small">
        Per type and tier, or per model, for example <code>{OVERRIDES_EXAMPLE}</code> (docs/rate-limits.md).
      </p>
      <Alert message={error} />
      <div class="actions">
        <button type="submit">Save overrides</button>
        <button type="button" class="secondary" onClick={() => save(null)}>
          Remove overrides
        </button>
      </div>
    </form>
  );
}
