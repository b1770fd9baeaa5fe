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
  ) {
    super(reason);
  }
}

/** Makes a refusal to throw: `throw refuse('no account numbers', { status: 422 })`. */
export function refuse(reason: string, opts: { status?: RefusalStatus; code?: string } = {}): PluginRefusal {
  return new PluginRefusal(reason, opts.status, opts.code);
}

/** Whether `e` is a plugin's refusal (also across two copies of the SDK). */
export function isRefusal(e: unknown): e is PluginRefusal {
  return (
    e instanceof PluginRefusal || (e instanceof Error && e.name === 'PluginRefusal' && typeof (e as PluginRefusal).reason === 'string')
  );
}
