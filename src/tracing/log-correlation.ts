import type { Logger } from '../log';
import type { Tracing } from './tracer';

/**
 * `log` with the trace id added to every line that names a request still being answered
 * (`requestId`), so an error line leads to its trace. Only made when tracing is on: off, the
 * logger is the one given and nothing is looked up.
 */
export function correlatedLogger(log: Logger, tracing: Pick<Tracing, 'traceIdOf'>): Logger {
  const withTrace = (fields: Record<string, unknown> | undefined) => {
    if (!fields || fields.requestId === undefined || fields.traceId !== undefined) return fields;
    const traceId = tracing.traceIdOf(fields.requestId);
    return traceId ? { ...fields, traceId } : fields;
  };
  return {
    debug: (msg, fields) => log.debug(msg, withTrace(fields)),
    info: (msg, fields) => log.info(msg, withTrace(fields)),
    warn: (msg, fields) => log.warn(msg, withTrace(fields)),
    error: (msg, fields) => log.error(msg, withTrace(fields)),
    enabled: log.enabled ? (level) => log.enabled!(level) : undefined,
  };
}
