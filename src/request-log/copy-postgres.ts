import type { Sql } from 'postgres';
import { IsoTimes } from '../db/csv';
import { copyCsv } from '../db/postgres-copy';
import { COLUMNS, csvLine } from './copy';
import type { RequestRecord } from './record';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const INT4 = 2_147_483_647;
const uuidOrNull = (v: string | null) => v === null || UUID.test(v);
const int4OrNull = (v: number | null) => v === null || (Number.isInteger(v) && Math.abs(v) <= INT4);

/**
 * Whether COPY takes the record as the typed statement would: its ids are uuids and its
 * integers fit their columns (text is made storable by csvLine). A batch with a record that is
 * not goes the statement's way at once (which drops just that record) rather than by a COPY the
 * server refuses and rolls back.
 */
function copyable(r: RequestRecord): boolean {
  return (
    uuidOrNull(r.accountId) &&
    uuidOrNull(r.apiKeyId) &&
    int4OrNull(r.status) &&
    int4OrNull(r.latencyMs) &&
    int4OrNull(r.ttfbMs) &&
    int4OrNull(r.upstreamMs) &&
    int4OrNull(r.promptTokens) &&
    int4OrNull(r.completionTokens) &&
    (r.costMicros === null || Number.isSafeInteger(r.costMicros))
  );
}

/**
 * Postgres's fast path for a request-log batch, as the embedded database's (copy.ts): one COPY
 * of the records as CSV, so Postgres parses no JSON and feeds no outer insert per row. All rows
 * or none: COPY cannot skip a request id already logged (a batch retried after a lost answer)
 * nor a row whose data Postgres refuses; either refuses the whole COPY (see copyCsv), so any
 * failure returns false and the caller writes the batch the way that skips and sorts out such rows.
 */
export async function copyRequestLogBatchPostgres(sql: Sql, rows: RequestRecord[]): Promise<boolean> {
  for (const r of rows) if (!copyable(r)) return false;
  const times = new IsoTimes();
  let csv = '';
  for (let i = 0; i < rows.length; i++) csv += (i === 0 ? '' : '\n') + csvLine(rows[i]!, times);
  try {
    await sql.begin((tx) => copyCsv(tx, `copy request_log (${COLUMNS}) from stdin with (format csv)`, csv));
    return true;
  } catch {
    return false;
  }
}
