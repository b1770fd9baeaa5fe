import type { Config } from '../config';
import type { RecordSink } from '../http/request-log';
import type { Observability } from './observability';
import { parseAbuseGuardConfig } from '../limits/abuse-guard';
import { clientIp, type RequestIpSource } from '../x402/ip-limit';

/** Where the access-log stage sends request records: the request log and the traces, or null when both are off. */
export function recordSinkOf(
  observability: Pick<Observability, 'recorder' | 'tracing'> | undefined,
  deps: { config: Config; now: () => number },
  server: () => RequestIpSource | null | undefined,
): RecordSink | null {
  const recorder = observability?.recorder ?? null;
  const tracing = observability?.tracing ?? null;
  if (!recorder && !tracing) return null;
  // The same trust in X-Forwarded-For as the abuse guard: an operator sets it once, for both.
  const trust = parseAbuseGuardConfig(deps.config.abuseGuard).trustForwardedFor;
  return {
    recorder,
    tracing,
    now: deps.now,
    clientIp(request) {
      const ip = clientIp(request, server() ?? null, trust);
      return ip === 'unknown' ? null : ip;
    },
  };
}
