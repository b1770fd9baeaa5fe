import type { Config } from '../config';
import type { RecordSink } from '../http/request-log';
import type { RequestRecorder } from './writer';
import { parseAbuseGuardConfig } from '../limits/abuse-guard';
import { clientIp, type RequestIpSource } from '../x402/ip-limit';

/** Where the access-log stage sends request records: the recorder, or null when the log is off. */
export function recordSinkOf(
  recorder: RequestRecorder | null | undefined,
  deps: { config: Config; now: () => number },
  server: () => RequestIpSource | null | undefined,
): RecordSink | null {
  if (!recorder) return null;
  // The same trust in X-Forwarded-For as the abuse guard: an operator sets it once, for both.
  const trust = parseAbuseGuardConfig(deps.config.abuseGuard).trustForwardedFor;
  return {
    recorder,
    now: deps.now,
    clientIp(request) {
      const ip = clientIp(request, server() ?? null, trust);
      return ip === 'unknown' ? null : ip;
    },
  };
}
