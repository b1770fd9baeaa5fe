/**
 * The statuses a refusal may carry: 400, 403, 422 for the request or the answer; 502 when
 * the upstream's answer broke what was asked (a schema), 503 when a check the plugin needs
 * could not run (a classifier that did not answer, failing closed).
 */
export type RefusalStatus = 400 | 403 | 422 | 502 | 503;

/**
 * A plugin's refusal (guardrails): thrown from a hook, it answers the client with `status`
 * and `{ error: "<plugin>: <reason>" }` before the call (nothing charged), after it (the
 * answer withheld, the upstream's cost charged) or mid-stream (a `content_filter` finish and
 * an in-band error).
 */
export class PluginRefusal extends Error {
  override name = 'PluginRefusal';
  constructor(
    readonly reason: string,
    /** The HTTP status; absent means 400 before the upstream call, 422 after it. */
    readonly status?: RefusalStatus,
    /** A machine-readable code for the error body (`code`). */
    readonly code?: string,
    /**
     * From `transformResponse` of a JSON answer: ask the upstream once more (the same
     * request) before refusing. Both calls are charged; the hooks see the second answer, and
     * a refusal of that one stands. Ignored anywhere else (a stream, a plugin's answer, a retry).
     */
    readonly retry?: boolean,
  ) {
    super(reason);
  }
}

/** Makes a refusal to throw: `throw refuse('no account numbers', { status: 422 })`. */
export function refuse(reason: string, opts: { status?: RefusalStatus; code?: string; retry?: boolean } = {}): PluginRefusal {
  return new PluginRefusal(reason, opts.status, opts.code, opts.retry);
}

/** Whether `e` is a plugin's refusal (also across two copies of the SDK). */
export function isRefusal(e: unknown): e is PluginRefusal {
  return (
    e instanceof PluginRefusal || (e instanceof Error && e.name === 'PluginRefusal' && typeof (e as PluginRefusal).reason === 'string')
  );
}

/**
 * An error the client sees as it is, not as a refusal: its status and message (a 404 for an
 * unknown id), or with `field` a 400 naming that field of the request body
 * (`Invalid body parameters: svc_parameters.x: <message>`). Nothing is charged.
 */
export class PluginClientError extends Error {
  override name = 'PluginClientError';
  constructor(
    readonly status: 400 | 403 | 404 | 409 | 422,
    message: string,
    /** The body field to blame, e.g. `['svc_parameters', 'enable_web_search']`. */
    readonly field?: (string | number)[],
  ) {
    super(message);
  }
}

/** Makes a client error to throw: `throw clientError(404, 'Character not found')`. */
export function clientError(
  status: PluginClientError['status'],
  message: string,
  opts: { field?: (string | number)[] } = {},
): PluginClientError {
  return new PluginClientError(status, message, opts.field);
}

/** Whether `e` is a plugin's client error (also across two copies of the SDK). */
export function isClientError(e: unknown): e is PluginClientError {
  return (
    e instanceof PluginClientError ||
    (e instanceof Error && e.name === 'PluginClientError' && typeof (e as PluginClientError).status === 'number')
  );
}
