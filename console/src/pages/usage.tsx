import { useEffect, useMemo, useState } from 'preact/hooks';
import { call, messageOf } from '../api';
import { Alert, PageHeading } from '../parts';
import type { Session } from '../app';
import { TimeChart } from '../chart';
import { painted } from '../colors';
import { money, num, shortId } from '../format';
import type { Account } from './accounts';
import { CacheSavingsTable } from './usage-cache';
import { LedgerTable } from './usage-ledger';
import { PeriodTotals } from './usage-totals';
import {
  accountParam,
  dailySpend,
  linesOf,
  LOOKBACK,
  WINDOW_LABEL,
  type Analytics,
  type SeriesSet,
  type SplitBy,
  type WindowName,
} from './usage-data';

// Significant digits: an hour of test traffic costs millionths of a dollar.
const usd = (v: number) => (v === 0 ? '$0' : `$${Math.abs(v) < 1 ? Number(v.toPrecision(2)) : num(v, 2)}`);
const count = (v: number) => num(v, 0);
const accountName = (a: Pick<Account, 'id' | 'displayName' | 'kind'>) => `${a.displayName || a.kind} · ${shortId(a.id)}`;

/**
 * The usage page of the caller's account, or of any account the operator picks: requests and
 * tokens per hour or day from the console's usage series; spend per hour (24 h) from the same,
 * and per day (7 and 30 days) from usage analytics; refusals; the response cache's hit rate and
 * savings; the ledger with CSV export.
 */
export function UsagePage({ session }: { session: Session }) {
  const [window, setWindow] = useState<WindowName>('24h');
  const [by, setBy] = useState<SplitBy>('model');
  const [accountId, setAccountId] = useState<string | null>(null);
  const [accounts, setAccounts] = useState<Account[]>([]);
  const [series, setSeries] = useState<SeriesSet | null>(null);
  const [refusals, setRefusals] = useState<SeriesSet | null>(null);
  const [analytics, setAnalytics] = useState<Analytics | null>(null);
  const [ownKeyNames, setOwnKeyNames] = useState<Record<string, string>>({});
  const [modelNames, setModelNames] = useState<Record<string, string>>({});
  const [error, setError] = useState('');

  useEffect(() => {
    if (session.operator)
      call<{ data: Account[] }>('/console/api/accounts')
        .then((r) => setAccounts(r.data.filter((a) => a.id !== session.accountId)))
        .catch((e) => setError(messageOf(e)));
    call<{ data: { id: string; description: string }[] }>('/api_keys')
      .then((r) => setOwnKeyNames(Object.fromEntries(r.data.map((k) => [k.id, k.description]))))
      .catch((e) => setError(messageOf(e)));
    // The series name models by id, usage analytics by name: every plot uses the name.
    call<{ data: { id: string; model_spec: { name?: string } }[] }>('/models?type=all')
      .then((r) => setModelNames(Object.fromEntries(r.data.map((m) => [m.id, m.model_spec.name ?? m.id]))))
      .catch((e) => setError(messageOf(e)));
  }, []);

  useEffect(() => {
    // A later choice wins: answers to an earlier one that arrive after it are dropped.
    let current = true;
    const who = accountParam(accountId);
    setError('');
    Promise.all([
      call<{ data: SeriesSet }>(`/console/api/usage-series?window=${window}&by=${by}${who}`).then((r) => current && setSeries(r.data)),
      call<{ data: SeriesSet }>(`/console/api/refusals?window=${window}`).then((r) => current && setRefusals(r.data)),
      call<Analytics>(`/billing/usage-analytics?lookback=${LOOKBACK[window]}&include=totals${who}`).then((r) => current && setAnalytics(r)),
    ]).catch((e) => current && setError(messageOf(e)));
    return () => void (current = false);
  }, [window, by, accountId]);

  // Key names: the account's keys with spend in the period (usage analytics), and the caller's own keys.
  const keyNames = useMemo(
    () => ({
      ...(accountId ? {} : ownKeyNames),
      ...Object.fromEntries((analytics?.byKey ?? []).flatMap((k) => (k.apiKeyId ? [[k.apiKeyId, k.description]] : []))),
    }),
    [accountId, ownKeyNames, analytics],
  );
  const ledgerNames = useMemo(
    () => ({
      key: (id: string | null) => (id ? (keyNames[id] ?? shortId(id)) : 'no key'),
      model: (id: string | null) => (id ? (modelNames[id] ?? id) : '–'),
    }),
    [keyNames, modelNames],
  );
  const times = useMemo(() => (series?.buckets ?? []).map((t) => t / 1000), [series]);
  const name = (n: string) => (by === 'key' ? (n ? (keyNames[n] ?? shortId(n)) : 'no key') : n ? (modelNames[n] ?? n) : 'no model');
  // Per day, spend comes from usage analytics; it has no hours, so the 24 h window keeps the series'.
  const daily = useMemo(() => (analytics && window !== '24h' ? dailySpend(analytics, by) : null), [analytics, window, by]);
  // One colour per model or key (and refusal type) in every chart of the page: each chart ranks its lines by its own totals.
  const lines = useMemo(
    () =>
      series &&
      painted({
        requests: linesOf(series, 'requests', name),
        tokens: linesOf(series, 'tokens', name),
        spend: linesOf(series, 'spend', name, 1_000_000),
        daily: daily?.lines ?? [],
        refused: refusals ? linesOf(refusals, 'refused', (n) => n) : [],
      }),
    [series, keyNames, modelNames, daily, refusals],
  );
  const picked = accounts.find((a) => a.id === accountId);
  const bucket = window === '24h' ? 'hour' : 'day';

  return (
    <section aria-labelledby="usage-title">
      <PageHeading id="usage-title">Usage</PageHeading>
      <Alert message={error} />
      <div class="toolbar">
        {session.operator && (
          // The label names the select alone (wrapped, its name would take in the chosen option's text).
          <div class="picker">
            <label for="usage-account">Account</label>
            <select
              id="usage-account"
              value={accountId ?? ''}
              onChange={(e) => setAccountId((e.currentTarget as HTMLSelectElement).value || null)}
            >
              <option value="">This account (operator)</option>
              {accounts.map((a) => (
                <option key={a.id} value={a.id}>
                  {accountName(a)}
                </option>
              ))}
            </select>
          </div>
        )}
        <fieldset>
          <legend>Window</legend>
          {(['24h', '7d', '30d'] as const).map((w) => (
            <label key={w} class="pill">
              <input type="radio" name="window" value={w} checked={window === w} onChange={() => setWindow(w)} />
              {WINDOW_LABEL[w]}
            </label>
          ))}
        </fieldset>
        <fieldset>
          <legend>Split by</legend>
          {(['model', 'key'] as const).map((b) => (
            <label key={b} class="pill">
              <input type="radio" name="by" value={b} checked={by === b} onChange={() => setBy(b)} />
              {b}
            </label>
          ))}
        </fieldset>
        {analytics?.totals && (
          <p class="totals" aria-label="Totals over the period">
            {window === '24h' ? 'Today (UTC)' : 'Total'}
            {Object.entries(analytics.totals)
              .filter(([c, v]) => v !== 0 || c === 'USD')
              .map(([c, v]) => (
                <span key={c}>{money(v, c)}</span>
              ))}
          </p>
        )}
      </div>
      {lines && (
        <div class="charts">
          <TimeChart title={`Requests per ${bucket}`} times={times} lines={lines.requests} format={count} bars integer />
          <TimeChart title={`Tokens per ${bucket}`} times={times} lines={lines.tokens} format={count} bars integer />
          {daily ? (
            <TimeChart title={`Spend per day by ${by} (usage analytics)`} times={daily.times} lines={lines.daily} format={usd} bars />
          ) : (
            <TimeChart title="Spend per hour (USD)" times={times} lines={lines.spend} format={usd} bars />
          )}
          {refusals && (
            <TimeChart
              title={
                session.operator
                  ? 'Refused requests, all accounts (rate limits and abuse blocks)'
                  : 'Refused requests (rate limits and abuse blocks)'
              }
              times={refusals.buckets.map((t) => t / 1000)}
              lines={lines.refused}
              format={count}
              bars
              integer
            />
          )}
        </div>
      )}
      {analytics && (
        <PeriodTotals analytics={analytics} by={by} period={window === '24h' ? 'today (UTC)' : `the last ${WINDOW_LABEL[window]}`} />
      )}
      <CacheSavingsTable
        accountId={accountId}
        window={window}
        period={window === '24h' ? 'the last 24 h' : `the last ${WINDOW_LABEL[window]}`}
      />
      <LedgerTable
        accountId={accountId}
        window={window}
        label={picked ? `account ${accountName(picked)}` : 'this account'}
        names={ledgerNames}
      />
    </section>
  );
}
