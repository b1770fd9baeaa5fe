import type { Config } from '../config';
import { SVC_VERSION } from '../http/version';
import type { Logger } from '../log';
import { observabilityConfigOf } from '../request-log/config';
import { tracingSettings } from './config';
import { startTracing, type Tracing } from './tracer';

export type { Tracing } from './tracer';

/** Tracing as config.observability.tracing and the `OTEL_*` variables ask, or null when it is off (nothing started). */
export function tracingOf(config: Config, log: Logger, env: Record<string, string | undefined> = process.env): Tracing | null {
  const settings = tracingSettings(observabilityConfigOf(config).tracing, env);
  if (!settings) return null;
  log.info('tracing: exporting OpenTelemetry traces over OTLP/HTTP', {
    endpoint: settings.endpoint.split('?')[0], // a query may carry a token
    sampler: settings.sampler,
    samplerArg: settings.samplerArg,
    serviceName: settings.serviceName,
  });
  return startTracing(settings, log, SVC_VERSION);
}
