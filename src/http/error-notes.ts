/** Fields a request's error answer carries beyond its error, keyed by the request itself. */
const notes = new WeakMap<Request, Record<string, unknown>>();

/**
 * Records what a request already did that its failure will not undo (a settled x402 payment
 * credited to the payer's wallet), so any error answer of that request says so. Keyed by the
 * Request, which the error handler reads anyway, so no hook has to take the whole context.
 */
export function noteOnError(request: Request, fields: Record<string, unknown>): void {
  notes.set(request, { ...notes.get(request), ...fields });
}

/** The fields recorded for the request's error answer, if any. */
export function errorNotesOf(request: Request): Record<string, unknown> | undefined {
  return notes.get(request);
}
