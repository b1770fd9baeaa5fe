import { formatMicros } from './money';
import { entryNotes, type UsageRow } from './usage-query';

/** CSV columns: the entry fields, with inferenceDetails flattened. */
export const USAGE_CSV_COLUMNS = [
  'timestamp',
  'sku',
  'pricePerUnitUsd',
  'unit',
  'amount',
  'currency',
  'notes',
  'requestId',
  'inferenceExecutionTime',
  'promptTokens',
  'completionTokens',
] as const;

/** RFC 4180 field: quoted (quotes doubled) when it holds a comma, quote, CR or LF. */
function field(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/**
 * Usage lines as RFC 4180 CSV with a header row and CRLF line ends. Amounts are exact
 * decimal strings (no float rounding); empty cells stand for null (non-inference lines,
 * tokens of non-text lines).
 */
export function usageCsv(rows: UsageRow[]): string {
  const lines = [USAGE_CSV_COLUMNS.join(',')];
  for (const r of rows) {
    const inference = r.modelId !== null || r.executionMs !== null;
    const cells = [
      r.createdAt.toISOString(),
      r.sku,
      r.pricePerUnitUsd,
      r.units,
      formatMicros(-r.amountMicros),
      r.currency,
      entryNotes(r),
      inference ? r.requestId : '',
      inference ? String(r.executionMs ?? 0) : '',
      inference && r.promptTokens !== null ? String(r.promptTokens) : '',
      inference && r.completionTokens !== null ? String(r.completionTokens) : '',
    ];
    lines.push(cells.map(field).join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}

/** True when the Accept header prefers CSV over JSON (the first of the two it names). */
export function wantsCsv(accept: string | null): boolean {
  if (!accept) return false;
  const csv = accept.indexOf('text/csv');
  if (csv < 0) return false;
  const json = accept.indexOf('application/json');
  return json < 0 || csv < json;
}
