import { useEffect, useState } from 'preact/hooks';
import { call, messageOf } from '../api';
import { Alert, DataTable, FilterInput, PageHeading } from '../parts';
import { money, shortId, when } from '../format';

/** An account as GET /console/api/accounts gives it. */
interface Account {
  id: string;
  kind: string;
  tier: 'standard' | 'partner';
  operator: boolean;
  scratch: boolean;
  displayName: string | null;
  walletAddress: string | null;
  createdAt: string;
  rateLimitOverrides: Record<string, unknown> | null;
  balances: Record<string, number>;
}

const CURRENCIES = ['USD', 'DIEM', 'VCU', 'BUNDLED_CREDITS', 'USDC'];
/** The currencies an account holds something in (every account has a row for each). */
const held = (balances: Record<string, number>) => Object.entries(balances).filter(([, v]) => v !== 0);

/** The operator's accounts page: tier, balances per currency and rate-limit overrides; credit and change tier. */
export function AccountsPage() {
  const [accounts, setAccounts] = useState<Account[] | null>(null);
  const [truncated, setTruncated] = useState(false);
  const [error, setError] = useState('');
  const [filter, setFilter] = useState('');
  const [crediting, setCrediting] = useState<string | null>(null);

  const load = () =>
    call<{ data: Account[]; truncated: boolean }>('/console/api/accounts')
      .then((r) => (setAccounts(r.data), setTruncated(r.truncated)))
      .catch((e) => setError(messageOf(e)));
  useEffect(() => void load(), []);

  async function setTier(account: Account, tier: string) {
    setError('');
    try {
      await call(`/admin/accounts/${account.id}/rate_limits`, { method: 'PUT', json: { tier } });
      await load();
    } catch (err) {
      setError(messageOf(err));
    }
  }

  const shown = (accounts ?? []).filter(
    (a) => !filter || `${a.id} ${a.displayName ?? ''} ${a.walletAddress ?? ''}`.toLowerCase().includes(filter.toLowerCase()),
  );
  return (
    <section aria-labelledby="accounts-title">
      <PageHeading id="accounts-title">Accounts</PageHeading>
      <Alert message={error} />
      <FilterInput value={filter} onChange={setFilter} placeholder="id, name or wallet" />
      {truncated && <p class="muted">Showing the newest 200 accounts; filter by id to find older ones in the CLI (`npm run admin`).</p>}
      {accounts === null ? (
        <p>Loading…</p>
      ) : (
        <DataTable caption="Accounts" headers={['Account', 'Tier', 'Balances', 'Limit overrides', 'Created', '']}>
          {shown.map((a) => [
            <tr key={a.id} data-account={a.id}>
              <td>
                <span class="mono" title={a.id}>
                  {shortId(a.id)}
                </span>{' '}
                {a.displayName ?? a.walletAddress ?? ''}
                {a.operator && <span class="badge admin">operator</span>}
                {a.scratch && <span class="badge">scratch</span>}
                {a.kind === 'wallet' && <span class="badge">wallet</span>}
              </td>
              <td>
                <label class="sr-only" for={`tier-${a.id}`}>
                  Tier of account {shortId(a.id)}
                </label>
                <select id={`tier-${a.id}`} value={a.tier} onChange={(e) => setTier(a, (e.currentTarget as HTMLSelectElement).value)}>
                  <option value="standard">standard</option>
                  <option value="partner">partner</option>
                </select>
              </td>
              <td class="balances">
                {held(a.balances).length === 0 ? money(0) : held(a.balances).map(([c, v]) => <div key={c}>{money(v, c)}</div>)}
              </td>
              <td class="mono small">{a.rateLimitOverrides ? JSON.stringify(a.rateLimitOverrides) : 'none'}</td>
              <td>{when(a.createdAt)}</td>
              <td>
                <button type="button" onClick={() => setCrediting(crediting === a.id ? null : a.id)} aria-expanded={crediting === a.id}>
                  Credit
                </button>
              </td>
            </tr>,
            crediting === a.id && (
              <tr key={`${a.id}-credit`}>
                <td colSpan={6}>
                  <CreditForm account={a} onDone={() => (setCrediting(null), load())} />
                </td>
              </tr>
            ),
          ])}
        </DataTable>
      )}
    </section>
  );
}

/**
 * Credits one account. The idempotency key is made when the form opens and kept until the
 * credit succeeds, so a retried submit (a timeout, a double click) is applied once.
 */
function CreditForm({ account, onDone }: { account: Account; onDone: () => void }) {
  const [idempotencyKey] = useState(() => crypto.randomUUID());
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState('');

  async function submit(e: Event) {
    e.preventDefault();
    const f = new FormData(e.currentTarget as HTMLFormElement);
    setBusy(true);
    setError('');
    try {
      const notes = String(f.get('notes') ?? '');
      const r = await call<{ data: { applied: boolean; balance: number; currency: string } }>(`/admin/accounts/${account.id}/credits`, {
        method: 'POST',
        json: { currency: f.get('currency'), amount: String(f.get('amount')), idempotencyKey, ...(notes ? { notes } : {}) },
      });
      setResult(`${r.data.applied ? 'Credited' : 'Already applied'}: balance now ${money(r.data.balance, r.data.currency)}`);
      setTimeout(onDone, 800);
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
