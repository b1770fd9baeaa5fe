import { Elysia } from 'elysia';
import { countedReads, deadlineReads, readThrough } from '../http/bounded-body';
import { Deadlines } from '../http/deadlines';
import { payloadTooLarge, requestTimeout } from '../http/errors';

/** How large a request body may be (bytes) and how long it may take to arrive (ms). */
export interface BodyLimits {
  maxBodyBytes: number;
  bodyTimeoutMs: number;
}

/**
 * Bounds request bodies in size and time, with `{ error }` answers: a declared Content-Length
 * above the limit is a 413 before the body is read, a chunked body is counted as it is read
 * (413 past the limit), and a body not in full within `bodyTimeoutMs` is a 408.
 */
export function bodyLimit({ maxBodyBytes, bodyTimeoutMs }: BodyLimits) {
  // A 408 comes at most a quarter of the timeout (or a second) late.
  const deadlines = new Deadlines(Math.min(1000, Math.max(10, bodyTimeoutMs >> 2)), () => requestTimeout(bodyTimeoutMs));
  const boundedReads = deadlineReads(deadlines, bodyTimeoutMs);
  // In onRequest, not in a parse hook: any parse hook takes every route off Elysia's compiled
  // single-parser path (chat's `parse: 'json'`), about 0.5 µs a request. Parsers then read
  // the body through these reads, and a cut read reaches the error handler as the cause of
  // Elysia's ParseError.
  return new Elysia({ name: 'svc.gate.body-limit', seed: [maxBodyBytes, bodyTimeoutMs] }).onRequest(function boundBody({ request }) {
    const length = request.headers.get('content-length');
    if (length !== null && Number(length) > maxBodyBytes) throw payloadTooLarge(maxBodyBytes);
    const method = request.method;
    if (method === 'GET' || method === 'HEAD') return;
    if (length === null && request.headers.get('transfer-encoding') !== null)
      readThrough(request, countedReads(request, maxBodyBytes, deadlines, bodyTimeoutMs));
    else readThrough(request, boundedReads);
  });
}
