import type { Sql } from 'postgres';
import { IsoTimes } from '../db/csv';
import { copyCsv } from '../db/postgres-copy';
import { APPEND_DAILY_SUMS, dailySums } from './daily-rollup';
import { ADD_BALANCE_SUMS, balanceSums, COLUMNS, csvLine } from './ledger-copy';
import type { LedgerCharge } from './ledger-row';

/**
 * Postgres's fast path for a ledger batch, as the embedded database's (ledger-copy.ts): the
 * charges go in by one COPY, their sums to `balances` and `usage_daily` as a few rows, in one
 * transaction. What Postgres does per row is then the heap tuple and the two index entries:
 * no JSON to parse and no row to return to an outer statement, as `json_to_recordset`'s
 * insert has. All rows or none: COPY cannot skip a request id already there (a batch retried
 * after a commit whose answer was lost), nor a value Postgres refuses; either refuses the whole
 * COPY at once (see copyCsv), so any failure is `null`,
 * and the caller writes the batch the slower way, which skips and sorts out such rows. Text
 * with NUL, which COPY cannot carry, goes that way at once.
 */
export async function copyLedgerBatchPostgres(sql: Sql, rows: LedgerCharge[]): Promise<number | null> {
  const times = new IsoTimes();
  let csv = '';
  for (let i = 0; i < rows.length; i++) csv += (i === 0 ? '' : '\n') + csvLine(rows[i]!, times);
  if (csv.includes('\u0000')) return null;
  try {
    await sql.begin(async (tx) => {
      await copyCsv(tx, `copy ledger_charges (${COLUMNS}) from stdin with (format csv)`, csv);
      await tx.unsafe(ADD_BALANCE_SUMS, [JSON.stringify(balanceSums(rows))]);
      await tx.unsafe(APPEND_DAILY_SUMS, [JSON.stringify(dailySums(rows))]);
    });
  } catch {
    return null;
  }
  return rows.length;
}
