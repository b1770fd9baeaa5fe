import { useEffect, useState } from 'preact/hooks';
import { call, messageOf } from '../api';
import { CreateAccountForm, CreditForm, OverridesForm } from './account-forms';
import { Alert, DataTable, FilterInput, PageHeading } from '../parts';
import { money, shortId, when } from '../format';
import { GuardrailsCell } from './guardrails-cell';

/** An account as GET /console/api/accounts gives it. */
export interface Account {
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

/** The currencies an account holds something in (every account has a row for each). */
const held = (balances: Record<string, number>) => Object.entries(balances).filter(([, v]) => v !== 0);

/** The operator's accounts page: tier, balances per currency and rate-limit overrides; credit and change tier. */
export function AccountsPage() {
  const [accounts, setAccounts] = useState<Account[] | null>(null);
  const [truncated, setTruncated] = useState(false);
  const [error, setError] = useState('');
  const [filter, setFilter] = useState('');
  const [open, setOpen] = useState<{ id: string; form: 'credit' | 'limits' } | null>(null);

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
      <details class="panel">
        <summary>Create an account</summary>
        <CreateAccountForm onCreated={() => void load()} />
      </details>
      <FilterInput value={filter} onChange={setFilter} placeholder="id, name or wallet" />
      {truncated && <p class="muted">Showing the newest 200 accounts; filter by id to find older ones in the CLI (`npm run admin`).</p>}
      {accounts === null ? (
        <p>Loading…</p>
      ) : (
        <DataTable caption="Accounts" headers={['Account', 'Tier', 'Balances', 'Limit overrides', 'Guardrails', 'Created', '']}>
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
              <td>
                <GuardrailsCell kind="accounts" id={a.id} label={`account ${shortId(a.id)}`} />
              </td>
              <td>{when(a.createdAt)}</td>
              <td>
                <div class="actions">
                  <a href={`#/requests?account=${a.id}`} aria-label={`Requests of account ${shortId(a.id)}`}>
                    Requests
                  </a>
                  {(['credit', 'limits'] as const).map((form) => (
                    <button
                      key={form}
                      type="button"
                      class={form === 'credit' ? '' : 'secondary'}
                      onClick={() => setOpen(open?.id === a.id && open.form === form ? null : { id: a.id, form })}
                      aria-expanded={open?.id === a.id && open.form === form}
                    >
                      {form === 'credit' ? 'Credit' : 'Limits'}
                    </button>
                  ))}
                </div>
              </td>
            </tr>,
            open?.id === a.id && (
              <tr key={`${a.id}-${open.form}`}>
                <td colSpan={7}>
                  {open.form === 'credit' ? (
                    <CreditForm account={a} onCredited={() => void load()} />
                  ) : (
                    <OverridesForm account={a} onDone={() => (setOpen(null), load())} />
                  )}
                </td>
              </tr>
            ),
          ])}
        </DataTable>
      )}
    </section>
  );
}
