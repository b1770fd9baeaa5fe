import { Elysia } from 'elysia';
import { serviceUnavailable } from '../http/errors';

/** Bodies below this many bytes are not counted: thousands of them hold less than one upload. */
export const COUNTED_BODY_BYTES = 64 * 1024;
/** What a refused upload is told to wait, in seconds: about one upload's time upstream. */
const RETRY_AFTER_SECONDS = 2;

/**
 * The bytes of request bodies this instance is holding (buffered, parsed, passed upstream),
 * with a ceiling. A body is taken whole before it is read, by its declared length or, sent
 * chunked, by the most it may grow to, and given back when its request has been answered.
 */
export class UploadBudget {
  private held = 0;
  private readonly holds = new WeakMap<Request, number>();

  constructor(readonly maxBytes: number) {}

  /** Bytes held now. */
  get inFlight(): number {
    return this.held;
  }

  /**
   * Holds `bytes` for `request`, or answers false when they do not fit beside what is held.
   * A body larger than the whole budget still passes when nothing else is held: one upload
   * is always served, whatever the setting.
   */
  take(request: Request, bytes: number): boolean {
    if (this.held > 0 && this.held + bytes > this.maxBytes) return false;
    this.held += bytes;
    this.holds.set(request, bytes);
    return true;
  }

  /** Gives back what `request` holds; a second call, or one for a request holding nothing, does nothing. */
  release(request: Request): void {
    const bytes = this.holds.get(request);
    if (bytes === undefined) return;
    this.holds.delete(request);
    this.held -= bytes;
  }
}

/**
 * The gate of the upload budget (`uploadBudgetBytes`): a request body of 64 KiB or more
 * (multipart uploads, base64 images in JSON, documents) takes its size from the instance's
 * budget before it is read, and a body that does not fit is a 503 with Retry-After, so
 * concurrent uploads cannot grow the process without bound. A body over `maxBodyBytes` takes
 * nothing (the body-limit gate answers it 413). The bytes are given back as soon as the
 * handler has answered or failed; after the response and on a client leaving as well, since
 * a request may end either way. Use it before the error handler, whose onError ends the chain.
 */
export function uploadBudgetGate(budget: UploadBudget, { maxBodyBytes }: { maxBodyBytes: number }) {
  return (
    new Elysia({ name: 'svc.gate.upload-budget', seed: [budget.maxBytes, maxBodyBytes] })
      .onRequest(function takeUploadBudget({ request }) {
        const length = request.headers.get('content-length');
        let bytes: number;
        if (length !== null) bytes = Number(length);
        // Chunked: the most it may grow to (body-limit.ts cuts it there).
        else if (request.headers.get('transfer-encoding') !== null) bytes = maxBodyBytes;
        else return;
        if (!(bytes >= COUNTED_BODY_BYTES) || bytes > maxBodyBytes) return;
        if (!budget.take(request, bytes))
          throw serviceUnavailable(
            `This instance is receiving ${budget.inFlight} bytes of uploads, its limit (uploadBudgetBytes: ${budget.maxBytes}); retry shortly`,
            RETRY_AFTER_SECONDS,
          );
        // A client that leaves mid-upload may never get an answer to release on.
        request.signal.addEventListener('abort', () => budget.release(request), { once: true });
      })
      // afterResponse alone comes late: it waits for every earlier afterResponse hook's promise.
      .onAfterHandle({ as: 'global' }, function releaseUploadBudget({ request }) {
        budget.release(request);
      })
      .onError({ as: 'global' }, function releaseFailedUpload({ request }) {
        budget.release(request);
      })
      .onAfterResponse({ as: 'global' }, function releaseAnsweredUpload({ request }) {
        budget.release(request);
      })
  );
}
