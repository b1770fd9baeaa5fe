import { Elysia } from 'elysia';
import { deadlineReads, readCounted, serveReadsFrom } from '../http/bounded-body';
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
  return new Elysia({ name: 'svc.gate.body-limit', seed: [maxBodyBytes, bodyTimeoutMs] })
    .onRequest(function refuseOversizeBody({ request }) {
      const length = request.headers.get('content-length');
      if (length !== null && Number(length) > maxBodyBytes) throw payloadTooLarge(maxBodyBytes);
    })
    .onParse({ as: 'global' }, function boundBodyReads({ request }) {
      // Returns nothing: the route's own parser then reads the body through the bounded reads.
      if (request.headers.get('transfer-encoding') === null || !request.body) {
        Object.defineProperties(request, boundedReads);
        return;
      }
      return readCounted(request.body, maxBodyBytes, deadlines, Date.now() + bodyTimeoutMs).then((bytes) => {
        serveReadsFrom(request, bytes);
      });
    });
}
