/**
 * Thrown when Redis cannot answer (down, restarting, loading its data, a cluster without a
 * quorum, or a command past its deadline). The error handler turns it into a retryable
 * 503 with Retry-After, so a request that needs Redis fails fast instead of hanging or
 * answering 500.
 */
export class KvUnavailableError extends Error {
  override name = 'KvUnavailableError';
  constructor(
    readonly retryAfterSeconds: number,
    cause?: unknown,
  ) {
    super(`redis unavailable${cause ? `: ${cause instanceof Error ? cause.message : String(cause)}` : ''}`);
  }
}

// Server replies that mean "not now" rather than "wrong command": a restarted Redis loading
// its data, a cluster without a quorum or in the middle of a resharding.
const TRANSIENT_REPLY = /^(LOADING|CLUSTERDOWN|TRYAGAIN|MASTERDOWN|BUSY)\b/;

/** Whether a Redis reply error is transient (the server is there but cannot serve yet). */
export function isTransientReply(message: string): boolean {
  return TRANSIENT_REPLY.test(message.replace(/^[A-Za-z]*Error(\s*\[[A-Z_]+\])?:\s*/, ''));
}
