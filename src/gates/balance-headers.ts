import type { UsageMeter } from '../billing/meter';
import { formatMicros } from '../billing/money';
import type { AfterAuthStage } from './auth';

/**
 * Stage 8 (the header part) for authenticated routes that are not bound to a model: the
 * caller's balances before the request (spec 9: `x-svc-balance-usd`, `x-svc-balance-diem`;
 * `X-Balance-Remaining` for wallets). Model routes (`metered`) get them from the meter's
 * reservation instead, so they are skipped here.
 */
export function balanceHeadersStage(meter: UsageMeter, metered: ReadonlySet<string>): AfterAuthStage {
  return async function stampBalances({ path, svc, set }) {
    const caller = svc.caller;
    if (!caller || metered.has(path)) return;
    const balances = await meter.balances(caller.accountId);
    set.headers['x-svc-balance-usd'] = formatMicros(balances.USD ?? 0);
    set.headers['x-svc-balance-diem'] = formatMicros(balances.DIEM ?? 0);
    if (caller.via === 'wallet') set.headers['x-balance-remaining'] = formatMicros(balances.USDC ?? 0);
  };
}
