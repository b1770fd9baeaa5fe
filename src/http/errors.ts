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

/**
 * A details node without a prototype: a client's field names (`__proto__`, `constructor`)
 * become own members like any other, never the prototype's.
 */
function detailsNode(): ErrorDetails {
  const node = Object.create(null) as ErrorDetails;
  node._errors = [];
  return node;
}

/** Builds `details` from field paths, e.g. `['messages', 0, 'content']`, each with its messages. */
export function detailsFrom(problems: { path: (string | number)[]; message: string }[]): ErrorDetails {
  const root = detailsNode();
  for (const { path, message } of problems) {
    let node = root;
    for (const segment of path) {
      const key = String(segment);
      // Own members of prototype-less nodes: a field named `__proto__` is a field, not a setter.
      const next = Object.hasOwn(node, key) ? node[key] : undefined;
      if (next && !Array.isArray(next)) node = next;
      else {
        const created = detailsNode();
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

/** One field's problem: its path (`['messages', 0, 'role']`) and the reason (`must be one of: user, ...`). */
export interface FieldProblem {
  path: (string | number)[];
  message: string;
}

/** Most field reasons put in the `error` string; the rest are counted ("and 2 more"). */
const ERROR_STRING_FIELDS = 3;

/**
 * 400 DetailedError whose `error` string itself names each field and its reason
 * (`Invalid body parameters: temperature: must be at most 2`), because the openai SDK,
 * LangChain and the AI SDK show only that string; `details` has every problem per field.
 */
export function invalidFields(problems: FieldProblem[], where = 'request'): ServiceError {
  const firstPerField = new Map<string, string>();
  for (const p of problems) {
    const field = p.path.join('.') || where;
    if (!firstPerField.has(field)) firstPerField.set(field, p.message);
  }
  const parts = [...firstPerField].map(([field, message]) => `${field}: ${message}`);
  const shown = parts.slice(0, ERROR_STRING_FIELDS).join('; ');
  const more = parts.length > ERROR_STRING_FIELDS ? `; and ${parts.length - ERROR_STRING_FIELDS} more (see details)` : '';
  return badRequest(`Invalid ${where} parameters: ${shown}${more}`, problems);
}

/** 400 DetailedError for one bad field: `Invalid request parameters: limit: must be at most 100`. */
export function invalidField(path: (string | number)[] | string, reason: string, where = 'request'): ServiceError {
  return invalidFields([{ path: typeof path === 'string' ? [path] : path, message: reason }], where);
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

/** Whole seconds to wait for `ms`, at least 1: the value of a Retry-After header. */
export function retryAfterSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

/**
 * 429 StandardError with the headers that tell the caller when to retry. `retryAfterMs`
 * becomes `Retry-After` in seconds, which the openai SDK and others wait for between retries
 * (without it they back off for about a second and give up long before the window resets).
 */
export function tooManyRequests(
  message = 'Rate limit exceeded',
  headers: Record<string, string> = {},
  retryAfterMs?: number,
): ServiceError {
  const retry: Record<string, string> = retryAfterMs === undefined ? {} : { 'retry-after': String(retryAfterSeconds(retryAfterMs)) };
  return new ServiceError(429, { error: message }, { ...headers, ...retry });
}

/**
 * 413 for request bodies above the configured limit (the reference's PayloadTooLargeError).
 * The connection closes: the rest of the body is never read, so it cannot carry another request.
 */
export function payloadTooLarge(limitBytes: number): ServiceError {
  return new ServiceError(
    413,
    { error: `Request body exceeds the limit of ${limitBytes} bytes`, code: 'PAYLOAD_TOO_LARGE' },
    { connection: 'close' },
  );
}

/** 408 for a request body that did not arrive in full within `timeoutMs`; the connection closes, as for a 413. */
export function requestTimeout(timeoutMs: number): ServiceError {
  return new ServiceError(
    408,
    { error: `Request body not received in full within ${timeoutMs} ms (bodyTimeoutMs)`, code: 'REQUEST_TIMEOUT' },
    { connection: 'close' },
  );
}

/** 502/503/504 for upstream failures; retryable by the client. */
export function upstreamError(status: 502 | 503 | 504, message: string): ServiceError {
  return new ServiceError(status, { error: message });
}

/** 503 with Retry-After: a backing store (Redis) is unreachable for now; nothing was charged. */
export function serviceUnavailable(message: string, retryAfterSeconds: number): ServiceError {
  return new ServiceError(503, { error: message }, { 'retry-after': String(retryAfterSeconds) });
}

/** 403 StandardError: the credential is valid but may not call this endpoint (wrong key type). */
export function forbidden(message = 'Forbidden'): ServiceError {
  return new ServiceError(403, { error: message });
}

/** 409 StandardError: the resource's state refuses the change (e.g. deleting an account that is not a scratch account). */
export function conflict(message: string, headers: Record<string, string> = {}): ServiceError {
  return new ServiceError(409, { error: message }, headers);
}
