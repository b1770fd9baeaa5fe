/** Severity levels, lowest first. */
const LEVELS = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;
export type LogLevel = keyof typeof LEVELS;

/** A structured logger writing one JSON object per line. Callers never pass secrets. */
export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  /** Whether lines of `level` are written (callers skip building lines that would be dropped). */
  enabled?(level: Exclude<LogLevel, 'silent'>): boolean;
}

// A failed drizzle query's message carries its parameters (key hashes, notes, amounts) after
// "params:"; everything from there to the stack trace is cut from every logged string.
const SQL_PARAMS = /\nparams: [\s\S]*?(?=\n\s+at |$)/g;

/** A field value with any SQL parameters removed (they must never reach a log line). */
export function redactSqlParams(value: unknown): unknown {
  return typeof value === 'string' && value.includes('\nparams: ') ? value.replace(SQL_PARAMS, '\nparams: [redacted]') : value;
}

/** Creates a logger that drops lines below `level`. */
export function createLogger(level: LogLevel = 'info', write: (line: string) => void = (l) => process.stdout.write(l)): Logger {
  const min = LEVELS[level];
  const emit = (lvl: Exclude<LogLevel, 'silent'>) =>
    function log(msg: string, fields?: Record<string, unknown>) {
      if (LEVELS[lvl] < min) return;
      const safe: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(fields ?? {})) safe[k] = redactSqlParams(v);
      write(`${JSON.stringify({ t: new Date().toISOString(), level: lvl, msg, ...safe })}\n`);
    };
  return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error'), enabled: (lvl) => LEVELS[lvl] >= min };
}
