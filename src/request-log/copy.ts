import type { PGlite } from '@electric-sql/pglite';
import { csvNumber as num, csvText, IsoTimes } from '../db/csv';
import { storableText } from './storable';
import type { RequestRecord } from './record';

/** The request log's columns, in its CSV lines' order. */
export const COLUMNS =
  'request_id, at, account_id, api_key_id, method, route, model, replica, status, error, latency_ms, ttfb_ms, stream, stages, upstream_ms, cache, guardrails, prompt_tokens, completion_tokens, cost_micros, currency, client_ip, user_agent';

/** A text field of a record, storable (no NUL, no lone surrogate) and quoted. */
const text = (v: string | null): string => (v === null ? '' : csvText(storableText(v)));

/** One record as a CSV line in COLUMNS order. */
export function csvLine(r: RequestRecord, times: IsoTimes): string {
  return `${text(r.requestId)},${times.of(r.at)},${r.accountId ?? ''},${r.apiKeyId ?? ''},${text(r.method)},${text(r.route)},${text(r.model)},${text(r.replica)},${r.status},${text(r.error)},${num(r.latencyMs)},${num(r.ttfbMs)},${text(r.stream)},${r.stages ? csvText(JSON.stringify(r.stages)) : ''},${num(r.upstreamMs)},${text(r.cache)},${text(r.guardrails)},${num(r.promptTokens)},${num(r.completionTokens)},${num(r.costMicros)},${text(r.currency)},${text(r.clientIp)},${text(r.userAgent)}`;
}

/**
 * The embedded database's fast path for a request-log batch: one COPY of the records as CSV
 * (measured by `bench/tools/request-log-cost.ts`: 26.7 µs of svc's CPU per row through
 * `json_to_recordset`, the table's four indexes included, against the figure in docs/perf-notes/2026-12-06.md).
 * All rows or none: COPY cannot skip a request id already logged (a batch retried after a lost
 * answer), and it refuses a row whose data Postgres refuses, so any failure returns false and the
 * caller writes the batch the way that skips and sorts out such rows.
 */
export async function copyRequestLogBatch(pg: PGlite, rows: RequestRecord[]): Promise<boolean> {
  const times = new IsoTimes();
  let csv = '';
  for (let i = 0; i < rows.length; i++) csv += (i === 0 ? '' : '\n') + csvLine(rows[i]!, times);
  try {
    await pg.query(`copy request_log (${COLUMNS}) from '/dev/blob' with (format csv)`, [], { blob: new Blob([csv]) });
    return true;
  } catch {
    return false;
  }
}
