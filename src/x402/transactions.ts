import { sql } from 'drizzle-orm';
import { microsToNumber } from '../billing/money';
import type { Database } from '../db/database';
import { ledgerAmounts } from '../db/schema';

/** One wallet transaction (API-NOTES 10): a top-up, a charge or a refund, with the balance after it. */
export interface WalletTransaction {
  id: string;
  /** Signed USD: credits positive, charges negative. */
  amount: number;
  balanceAfter: number;
  type: 'TOP_UP' | 'CHARGE' | 'REFUND';
  createdAt: string;
  requestId: string | null;
  modelId: string | null;
}

interface Row {
  first_id: string | number;
  request_id: string;
  kind: string;
  amount: string | number;
  balance_after: string | number;
  created_at: string | Date;
  model_id: string | null;
  total: string | number;
}

/**
 * A page of a wallet's USDC ledger, newest first. A request's ledger lines (one per SKU, or one charge
 * row with its lines) are one transaction; `balanceAfter` is the running sum of the ledger, which for a wallet account
 * is its whole history (its balance starts at zero and changes only through the ledger).
 * Credits (staking) are listed as TOP_UP. Top-ups carry no request id (their id is the payment's).
 */
export async function walletTransactions(
  db: Database,
  accountId: string,
  page: { limit: number; offset: number },
): Promise<{ transactions: WalletTransaction[]; total: number }> {
  const result = await db.execute(sql`
    with grouped as (
      select request_id, kind, min(id) as first_id, min(created_at) as created_at, sum(amount_micros) as amount, max(model_id) as model_id
      from ${ledgerAmounts}
      where account_id = ${accountId} and currency = 'USDC'
      group by request_id, kind
    ), running as (
      select *, sum(amount) over (order by created_at, first_id) as balance_after, count(*) over () as total from grouped
    )
    select * from running order by created_at desc, first_id desc limit ${page.limit} offset ${page.offset}`);
  const rows = (Array.isArray(result) ? result : (result as { rows: Row[] }).rows) as Row[];
  const transactions = rows.map((r): WalletTransaction => {
    const topUp = r.kind === 'TOP_UP' || r.kind === 'CREDIT';
    return {
      id: topUp && r.request_id.startsWith('x402:') ? r.request_id.slice(5) : String(r.first_id),
      amount: microsToNumber(Number(r.amount)),
      balanceAfter: microsToNumber(Number(r.balance_after)),
      type: topUp ? 'TOP_UP' : r.kind === 'REFUND' ? 'REFUND' : 'CHARGE',
      createdAt: new Date(r.created_at).toISOString(),
      requestId: topUp ? null : r.request_id,
      modelId: r.model_id,
    };
  });
  return { transactions, total: Number(rows[0]?.total ?? 0) };
}
