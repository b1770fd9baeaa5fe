import type { LedgerRow } from '../billing/ledger-row';

/**
 * The messages between svc's thread and the PGlite worker (src/db/pglite-worker.ts). Every
 * request carries an id; the worker answers each with `{ id, ok, value }` or `{ id, ok: false,
 * error }`. Values cross the thread boundary by structured clone, so what PGlite parsed in the
 * worker (numbers, bigints, Dates, JSON objects) arrives as it is.
 */
export type WorkerRequest = { db: number } & (
  | {
      t: 'open';
      id: number;
      dataDir?: string;
      load?: ArrayBuffer;
      settings: string[];
      migrationsFolder: string;
      /** Compiled once per process and shared by its workers (compiling PGlite's 9 MB of WASM takes ~0.5-2 s). */
      wasm: { pglite: WebAssembly.Module; initdb: WebAssembly.Module };
    }
  /** `identity`: the type oids whose text is returned unparsed (drizzle's parsers for dates and intervals). */
  | { t: 'query'; id: number; tx: number; sql: string; params: unknown[]; rowMode?: 'array' | 'object'; identity?: number[] }
  | { t: 'exec'; id: number; tx: number; sql: string }
  | { t: 'begin'; id: number }
  | { t: 'end'; id: number; tx: number; commit: boolean }
  /** A ledger batch by COPY; the value is the number of rows or null for a replayed batch (see ledger-copy.ts). */
  | { t: 'ledger'; id: number; rows: LedgerRow[] }
  | { t: 'dump'; id: number }
  | { t: 'close'; id: number }
);

/** A database error as it crosses the boundary: message plus PGlite's fields (code, detail, constraint...). */
export type WorkerError = { message: string } & Record<string, unknown>;

export type WorkerReply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: WorkerError };

/** The fields of a database error worth keeping: callers test `code` (23505 and friends). */
export function serializeError(error: unknown): WorkerError {
  if (!(error instanceof Error)) return { message: String(error) };
  const out: WorkerError = { message: error.message };
  for (const [k, v] of Object.entries(error)) if (v === null || ['string', 'number', 'boolean'].includes(typeof v)) out[k] = v;
  return out;
}

/** The error again on svc's thread, an Error with the same fields. */
export function deserializeError(e: WorkerError): Error {
  const error = new Error(e.message);
  Object.assign(error, e, { message: e.message });
  return error;
}
