import { ConfigError } from '../config';
import { DataDirLockedError } from './data-lock';

/**
 * Exit codes of a start that failed: 2 when it will fail again until someone changes
 * something (configuration, credentials, a missing database, a taken port), 1 when a
 * dependency is unreachable and a later start may succeed as it is.
 */
export const EXIT_CONFIGURATION = 2;
/** See EXIT_CONFIGURATION. */
export const EXIT_UNREACHABLE = 1;

/** The port is taken (by another svc or anything else) and port sharing was not asked for. */
export class PortInUseError extends Error {
  constructor(host: string, port: number) {
    super(
      `${host}:${port} is already in use (another svc?). Stop it, pick another PORT, or set SVC_REUSE_PORT=true ` +
        'to share the port on purpose (the kernel then splits connections between the processes)',
    );
  }
}

/** Opening a dependency at start failed; `cause` is what its client threw. */
export class DependencyError extends Error {
  constructor(
    readonly dependency: 'postgres' | 'redis',
    override readonly cause: unknown,
  ) {
    super(`${dependency}: ${String(cause)}`);
  }
}

/** A promise `catch` handler that tags a dependency's failure (configuration errors pass as they are). */
export const failedOn = (dependency: DependencyError['dependency']) => (error: unknown) => {
  throw error instanceof ConfigError ? error : new DependencyError(dependency, error);
};

/** What to print (one line) and the exit code, for whatever stopped the start. */
export function describeStartupFailure(
  error: unknown,
  urls: { databaseUrl?: string; redisUrl?: string },
): { line: string; exitCode: number } {
  if (error instanceof ConfigError) return { line: `svc: configuration error: ${error.message}`, exitCode: EXIT_CONFIGURATION };
  if (error instanceof PortInUseError) return { line: `svc: cannot start: ${error.message}`, exitCode: EXIT_CONFIGURATION };
  if (error instanceof DataDirLockedError)
    return {
      line: `svc: cannot start: ${error.message}. Stop it first, or give this instance its own SVC_DATA_DIR.`,
      exitCode: EXIT_CONFIGURATION,
    };
  if (error instanceof DependencyError) {
    const [message, exitCode] =
      error.dependency === 'postgres'
        ? postgresFailure(error.cause, urls.databaseUrl ?? '')
        : redisFailure(error.cause, urls.redisUrl ?? '');
    return { line: `svc: cannot start: ${message}`, exitCode };
  }
  const unknown = error as { stack?: string } | undefined;
  return { line: `svc: failed to start: ${unknown?.stack ?? String(error)}`, exitCode: EXIT_UNREACHABLE };
}

/** The error codes along `error`'s cause chain (drizzle wraps the driver's error in its own). */
function codesOf(error: unknown): { code?: string; message: string } {
  for (
    let e = error as { code?: unknown; message?: unknown; cause?: unknown } | undefined, depth = 0;
    e && depth < 5;
    e = e.cause as typeof e, depth++
  )
    if (typeof e.code === 'string') return { code: e.code, message: String(e.message ?? '') };
  return { message: error instanceof Error ? error.message : String(error) };
}

/** Host, port, user and database of a Postgres URL, with the driver's defaults. */
function postgresTarget(url: string) {
  try {
    const u = new URL(url);
    const host = u.hostname || 'localhost';
    const port = u.port || '5432';
    const user = decodeURIComponent(u.username) || 'postgres';
    const database = decodeURIComponent(u.pathname.slice(1)) || user;
    return { host, port, user, database };
  } catch {
    return { host: '?', port: '?', user: '?', database: '?' };
  }
}

function postgresFailure(cause: unknown, url: string): [string, number] {
  const { host, port, user, database } = postgresTarget(url);
  const at = `Postgres at ${host}:${port}`;
  const { code, message } = codesOf(cause);
  switch (code) {
    case 'ECONNREFUSED':
      return [
        `${at} refused the connection (nothing listens there): start Postgres, or fix the host and port in DATABASE_URL`,
        EXIT_UNREACHABLE,
      ];
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return [`${at}: the host name "${host}" does not resolve: fix the host in DATABASE_URL`, EXIT_UNREACHABLE];
    case 'CONNECT_TIMEOUT':
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return [`${at} did not answer (${code}): check that it runs and that a firewall lets this host reach it`, EXIT_UNREACHABLE];
    case '28P01':
    case '28000':
      return [
        `${at} refused user "${user}": authentication failed (${message}): fix the user and password in DATABASE_URL, or the server's pg_hba.conf`,
        EXIT_CONFIGURATION,
      ];
    case '3D000':
      return [
        `database "${database}" does not exist on ${at}: create it (createdb -h ${host} -p ${port} -U ${user} ${database}) or fix the name in DATABASE_URL`,
        EXIT_CONFIGURATION,
      ];
    case '42501':
      return [
        `user "${user}" may not create svc's tables in "${database}" on ${at} (${message}): grant it CREATE on the database, or use its owner`,
        EXIT_CONFIGURATION,
      ];
    case '57P03':
    case '53300':
      return [`${at} is not accepting connections now (${message}): wait for it, or raise its max_connections`, EXIT_UNREACHABLE];
    default:
      return [`${at}: ${message}${code ? ` (${code})` : ''}`, EXIT_UNREACHABLE];
  }
}

function redisFailure(cause: unknown, url: string): [string, number] {
  let at = 'Redis';
  try {
    const u = new URL(url);
    at = `Redis at ${u.hostname}:${u.port || '6379'}`;
  } catch {
    // The message below still says REDIS_URL.
  }
  // The connect probe's own prefix repeats the URL.
  const message = codesOf(cause).message.replace(/^redis: cannot connect to \S+: /, '');
  if (/WRONGPASS|NOAUTH|invalid password|invalid username/i.test(message))
    return [`${at} refused the credentials (${message}): fix the user and password in REDIS_URL`, EXIT_CONFIGURATION];
  return [
    `${at} is unreachable (${message}): start Redis, or fix REDIS_URL (unset, svc keeps limits and holds in memory)`,
    EXIT_UNREACHABLE,
  ];
}

/**
 * Refuses a port another process listens on before anything is created (the embedded
 * database's first start takes seconds and leaves a directory behind). The real listen
 * checks again: another process may take the port in between.
 */
export function assertPortFree(config: { host: string; port: number; reusePort?: boolean }) {
  if (config.port === 0 || config.reusePort) return;
  let probe: { stop(closeActiveConnections?: boolean): void } | undefined;
  try {
    probe = Bun.listen({ hostname: config.host, port: config.port, socket: { data() {} } });
  } catch (error) {
    if ((error as { code?: string }).code === 'EADDRINUSE') throw new PortInUseError(config.host, config.port);
    throw error;
  } finally {
    probe?.stop(true);
  }
}
