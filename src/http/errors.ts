/**
 * The one error type of the service. Gates and handlers throw it (or return it via
 * `status`), and the error plugin renders it as a StandardError `{ error }` or a
 * DetailedError `{ error, details }` (spec 2.5).
 */

/** Per-field problems, zod `format()` style: `{ _errors: [], field: { _errors: ['...'] } }`. */
export interface ErrorDetails {
  _errors: string[];
  [field: string]: ErrorDetails | string[];
}

/** The JSON body of an error response. Extra members (code, x402 fields) ride along when set. */
export interface ErrorBody {
  error: string;
  details?: ErrorDetails;
  [extra: string]: unknown;
}

/** An error with its HTTP status, body and any headers it must carry (Retry-After, ...). */
export class ServiceError extends Error {
  override name = 'ServiceError';
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
    readonly headers: Record<string, string> = {},
  ) {
    super(body.error);
  }
}

/** Builds `details` from field paths, e.g. `['messages', 0, 'content']`, each with its messages. */
export function detailsFrom(problems: { path: (string | number)[]; message: string }[]): ErrorDetails {
  const root: ErrorDetails = { _errors: [] };
  for (const { path, message } of problems) {
    let node = root;
    for (const segment of path) {
      const key = String(segment);
      const next = node[key];
      if (next && !Array.isArray(next)) node = next;
      else {
        const created: ErrorDetails = { _errors: [] };
        node[key] = created;
        node = created;
      }
    }
    if (!node._errors.includes(message)) node._errors.push(message);
  }
  return root;
}

/** 400 DetailedError naming the offending field(s). */
export function badRequest(message: string, fields: { path: (string | number)[]; message: string }[] = []): ServiceError {
  return new ServiceError(400, fields.length ? { error: message, details: detailsFrom(fields) } : { error: message });
}

/** 401 StandardError. The message never echoes the presented credential. */
export function unauthorized(message = 'Authentication failed'): ServiceError {
  return new ServiceError(401, { error: message });
}

/** 404 StandardError. */
export function notFound(message = 'Not found'): ServiceError {
  return new ServiceError(404, { error: message });
}

/** 402 StandardError (insufficient balance or key spend limit). */
export function paymentRequired(message: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}): ServiceError {
  return new ServiceError(402, { error: message, ...extra }, headers);
}

/** 429 StandardError with the headers that tell the caller when to retry. */
export function tooManyRequests(message = 'Rate limit exceeded', headers: Record<string, string> = {}): ServiceError {
  return new ServiceError(429, { error: message }, headers);
}

/** 413 for request bodies above the configured limit (the reference's PayloadTooLargeError). */
export function payloadTooLarge(limitBytes: number): ServiceError {
  return new ServiceError(413, { error: `Request body exceeds the limit of ${limitBytes} bytes`, code: 'PAYLOAD_TOO_LARGE' });
}

/** 502/503/504 for upstream failures; retryable by the client. */
export function upstreamError(status: 502 | 503 | 504, message: string): ServiceError {
  return new ServiceError(status, { error: message });
}

/** 403 StandardError: the credential is valid but may not call this endpoint (wrong key type). */
export function forbidden(message = 'Forbidden'): ServiceError {
  return new ServiceError(403, { error: message });
}
