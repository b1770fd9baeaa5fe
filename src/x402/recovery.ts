import type { Logger } from '../log';
import type { Database } from '../db/database';
import { unfinishedPayments } from './payments-store';
import type { TopUp } from './top-up';

/**
 * Start-up recovery from the payments table: a `settled` row (the process died between the
 * facilitator's confirmation and the credit) is credited; a `pending` row idle for longer than
 * a settlement may take (its outcome was never learned) is settled again, which a facilitator
 * answers idempotently for an authorization it already executed, and credited when it
 * succeeds. Each credit is idempotent by payment id, so two instances recovering at once
 * credit once. Returns how many payments were credited.
 */
export async function recoverPayments(deps: { db: Database; log: Logger; topUp: TopUp; staleMs: number }): Promise<number> {
  const rows = await unfinishedPayments(deps.db, deps.staleMs);
  let credited = 0;
  for (const row of rows) {
    try {
      if (row.status === 'settled') await deps.topUp.credit(row);
      else await deps.topUp.settleAndCredit(row);
      credited += 1;
      deps.log.info('x402: recovered payment', { paymentId: row.paymentId, from: row.status });
    } catch (error) {
      deps.log.warn('x402: payment not recovered', { paymentId: row.paymentId, error: String((error as Error).message ?? error) });
    }
  }
  return credited;
}
