import type { PGlite } from '@electric-sql/pglite';
import { csvText, IsoTimes } from '../db/csv';

/** The fields of a stored response the COPY writes (store.ts's StoredResponse; named here so the two files import one way). */
export interface CopiedResponse {
  id: string;
  accountId: string;
  previousResponseId: string | null;
  rootId: string;
  status: string;
  input: unknown;
  response: unknown;
  /** Epoch ms. */
  createdAt: number;
  expiresAt: number;
}

const COLUMNS = 'id, account_id, previous_response_id, root_id, status, input, response, created_at, expires_at';

/** One stored response as a CSV line in COLUMNS order (its JSON columns as quoted text, which COPY casts to jsonb). */
function csvLine(r: CopiedResponse, times: IsoTimes): string {
  return `${csvText(r.id)},${r.accountId},${csvText(r.previousResponseId)},${csvText(r.rootId)},${csvText(r.status)},${csvText(JSON.stringify(r.input))},${csvText(JSON.stringify(r.response))},${times.of(r.createdAt)},${times.of(r.expiresAt)}`;
}

/**
 * The embedded database's fast path for a batch of stored responses: one COPY of the rows as
 * CSV, as the request log and the ledger write theirs (PGlite reads CSV natively, at about half
 * the CPU of the same rows as an INSERT's parameters: bench/responses-store-cost.ts). All rows
 * or none: COPY cannot update a response stored before (a background response's later state)
 * and refuses a row Postgres refuses (NUL in its text), so any failure returns false and the
 * caller writes the batch by the INSERT that updates and sorts out such rows.
 */
export async function copyStoredResponses(pg: PGlite, rows: CopiedResponse[]): Promise<boolean> {
  const times = new IsoTimes();
  let csv = '';
  for (let i = 0; i < rows.length; i++) csv += (i === 0 ? '' : '\n') + csvLine(rows[i]!, times);
  try {
    await pg.query(`copy stored_responses (${COLUMNS}) from '/dev/blob' with (format csv)`, [], { blob: new Blob([csv]) });
    return true;
  } catch {
    return false;
  }
}
