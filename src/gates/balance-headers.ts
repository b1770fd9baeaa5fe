import { Elysia } from 'elysia';
import type { UsageMeter } from '../billing/meter';
import { formatMicros } from '../billing/money';
import { requestContext } from './request-id';

/**
 * The balance headers of account routes (the `balanceHeaders` route option, composed by
 * `auth`): the caller's balances before the request (spec 9: `x-svc-balance-usd`,
 * `x-svc-balance-diem`; `X-Balance-Remaining` for wallets). Inference routes get them from
 * the meter's reservation instead.
 */
export function balanceHeadersGate(meter: UsageMeter) {
  return new Elysia({ name: 'svc.gate.balance-headers' }).use(requestContext).macro({
    balanceHeaders: {
      async transform({ svc, set }) {
        const caller = svc.caller;
        if (!caller) return;
        const balances = await meter.balances(caller.accountId);
        set.headers['x-svc-balance-usd'] = formatMicros(balances.USD ?? 0);
        set.headers['x-svc-balance-diem'] = formatMicros(balances.DIEM ?? 0);
        if (caller.via === 'wallet') set.headers['x-balance-remaining'] = formatMicros(balances.USDC ?? 0);
      },
    },
  });
}
