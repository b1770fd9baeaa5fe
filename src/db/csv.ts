/**
 * CSV for PGlite's `COPY ... from '/dev/blob' with (format csv)`: the embedded database reads
 * CSV natively, at about half the CPU of the same rows through `json_to_recordset` (the ledger's
 * and the request log's batches; docs/perf-notes/2026-11-28.md and 2026-12-06.md).
 */

/** A CSV text field: quoted (quotes doubled), so commas, quotes and newlines survive; null is the unquoted empty field COPY reads as NULL. */
export const csvText = (v: string | null | undefined): string =>
  v === null || v === undefined ? '' : v.includes('"') ? `"${v.replaceAll('"', '""')}"` : `"${v}"`;

/** A number or null as a CSV field (integers are written as they are). */
export const csvNumber = (v: number | null | undefined): string => (v === null || v === undefined ? '' : String(v));

/**
 * `new Date(at).toISOString()`, with the part up to the second made once per second: the
 * rows of a batch were made within a second or two, and formatting a date per row was a tenth
 * of the ledger batch's JavaScript (docs/perf-notes/2026-11-28.md).
 */
export class IsoTimes {
  private second = NaN;
  private prefix = '';

  of(at: number): string {
    const second = Math.floor(at / 1000);
    if (second !== this.second) {
      this.second = second;
      this.prefix = new Date(second * 1000).toISOString().slice(0, 19);
    }
    const ms = Math.floor(at - second * 1000);
    return `${this.prefix}.${ms < 10 ? '00' : ms < 100 ? '0' : ''}${ms}Z`;
  }
}
