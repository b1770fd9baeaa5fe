import { UpstreamFailure, upstreamAtCapacity, upstreamRejected, upstreamTimeout, upstreamUnavailable } from '../errors';
import { responseTextPrefix } from '../../src/net/limited-body';
import type { CallOptions } from '../types';

/** Listener options, shared: an options object per call is one more allocation. */
const ONCE: AddEventListenerOptions = { once: true };

/** Bytes of an error body read at most: enough for its first 2,000 characters, the rest is never downloaded. */
const ERROR_BODY_BYTES = 8 * 1024;

/** Reads at most 2,000 characters of an error body, for a message that never echoes secrets. */
async function errorDetail(res: Response): Promise<string> {
  const text = (await responseTextPrefix(res, ERROR_BODY_BYTES)).slice(0, 2000);
  try {
    const body = JSON.parse(text) as { error?: { message?: string } | string; message?: string; detail?: string };
    const msg = typeof body.error === 'string' ? body.error : (body.error?.message ?? body.message ?? body.detail);
    if (typeof msg === 'string') return msg.slice(0, 500);
  } catch {}
  return `HTTP ${res.status}`;
}

/**
 * The error the router and client see for an upstream error status, whether it came as the
 * HTTP status or in-band at the start of a stream: 503 with Retry-After when saturated, 502
 * (retried elsewhere) when broken, 400 when the request itself was refused.
 */
export function failureForStatus(status: number, detail: string, retryAfter: string | null): UpstreamFailure {
  // 529 is Anthropic's overloaded_error.
  if (status === 429 || status === 503 || status === 529) return upstreamAtCapacity(retryAfter);
  // 401/403/404 mean svc's key or model mapping is wrong for this replica, not the client's
  // request: a 502 that another replica may not have.
  if (status >= 500 || status === 401 || status === 403 || status === 404) return upstreamUnavailable(`the upstream answered ${status}`);
  return upstreamRejected(status, detail);
}

/** Turns a non-2xx upstream status into the error the router and client see. */
export async function statusError(res: Response) {
  return failureForStatus(res.status, await errorDetail(res), res.headers.get('retry-after'));
}

/**
 * One upstream call's wiring: the abort the fetch listens to, fired by the client's abort
 * (the attempt is the listener: `handleEvent`) or by the deadline. A class, so a call
 * allocates no listener, `end` or timer closure.
 */
export class UpstreamAttempt {
  readonly abort = new AbortController();
  timedOut = false;

  constructor(private readonly call: CallOptions) {
    if (call.signal.aborted) this.abort.abort(call.signal.reason);
    else call.signal.addEventListener('abort', this, ONCE);
  }

  /** The client's abort. */
  handleEvent(): void {
    this.abort.abort(this.call.signal.reason);
  }

  /** Detaches the client's abort once the caller is done with the body. */
  end(): void {
    this.call.signal.removeEventListener('abort', this);
  }
}

/** The deadline before the first byte (a function of the module: the timer gets the attempt as its argument, no closure). */
function upstreamFirstByteTimeout(attempt: UpstreamAttempt, timeoutMs: number): void {
  attempt.timedOut = true;
  // A TimeoutError, not the plain AbortError a client's departure gives: /metrics counts
  // the failure as reason="timeout".
  attempt.abort.abort(new DOMException(`no first byte within ${timeoutMs} ms`, 'TimeoutError'));
}

/**
 * One upstream HTTP call until its first byte is in hand: the client's abort and the
 * replica's deadline are wired to the fetch, and every failure before the first byte becomes
 * the UpstreamFailure the router retries or the client sees. `read` runs under the same
 * deadline (a JSON body, or the first chunk of a stream); `attempt.end()` detaches the
 * client's abort once the caller is done with the body.
 */
export async function upstreamCall<T>(
  doFetch: typeof fetch,
  url: string,
  headers: Record<string, string>,
  body: string | FormData,
  call: CallOptions,
  read: (res: Response, attempt: UpstreamAttempt) => Promise<T>,
): Promise<T> {
  const attempt = new UpstreamAttempt(call);
  const timer = setTimeout(upstreamFirstByteTimeout, call.timeoutMs, attempt, call.timeoutMs);
  try {
    // The provider's headers are shared by its calls: a traced call sends a copy with its traceparent.
    const sent = call.traceparent ? { ...headers, traceparent: call.traceparent } : headers;
    const res = await doFetch(url, { method: 'POST', headers: sent, body, signal: attempt.abort.signal });
    if (!res.ok) throw await statusError(res);
    return await read(res, attempt);
  } catch (error) {
    attempt.end();
    if (attempt.timedOut) throw upstreamTimeout(call.timeoutMs);
    if (call.signal.aborted) throw error;
    if (error instanceof UpstreamFailure) throw error;
    throw upstreamUnavailable('the upstream could not be reached or sent a broken answer');
  } finally {
    clearTimeout(timer);
  }
}
