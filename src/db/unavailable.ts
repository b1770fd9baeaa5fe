/** Seconds a client is told to wait (Retry-After) when the database cannot answer. */
export const DB_RETRY_AFTER_SECONDS = 2;

/**
 * Thrown when Postgres cannot answer: the connection is refused, lost or timed out, the
 * server is shutting down or starting, or a statement passed its deadline. The error
 * handler turns it into a retryable 503 with Retry-After, as it does for a Redis outage.
 */
export class DbUnavailableError extends Error {
  override name = 'DbUnavailableError';
  readonly retryAfterSeconds = DB_RETRY_AFTER_SECONDS;
  constructor(reason: string, cause?: unknown) {
    super(`database unavailable: ${reason}`, cause === undefined ? undefined : { cause });
  }
}

// postgres.js's own codes for a connection that could not be made or was lost, and the
// socket errors it passes on.
const CONNECTION_CODES = new Set([
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * Whether an error means the database is not there rather than that the statement is wrong:
 * a connection code, SQLSTATE class 08 (connection exception), 57P01-57P03 (shutting down,
 * crashed, starting) or 53300 (too many connections).
 */
export function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return false;
  return CONNECTION_CODES.has(code) || code.startsWith('08') || /^57P0[123]$/.test(code) || code === '53300';
}

/** The DbUnavailableError in `error` or its causes (drizzle wraps driver errors), or one made for a connection error there; else null. */
export function dbUnavailable(error: unknown): DbUnavailableError | null {
  for (let e = error, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof DbUnavailableError) return e;
    if (isConnectionError(e)) return new DbUnavailableError((e as Error).message ?? String(e), e);
  }
  return null;
}
