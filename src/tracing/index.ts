import type { Config } from '../config';
import { SVC_VERSION } from '../http/version';
import type { Logger } from '../log';
import { observabilityConfigOf } from '../request-log/config';
import { tracingSettings } from './config';
import type { Tracing } from './tracer';

export type { Tracing } from './tracer';

/**
 * Tracing as config.observability.tracing and the `OTEL_*` variables ask, or null when it is
 * off: then nothing is started and the OpenTelemetry SDK is not even loaded.
 */
export async function tracingOf(
  config: Config,
  log: Logger,
  env: Record<string, string | undefined> = process.env,
): Promise<Tracing | null> {
  const settings = tracingSettings(observabilityConfigOf(config).tracing, env);
  if (!settings) return null;
  log.info('tracing: exporting OpenTelemetry traces over OTLP/HTTP', {
    endpoint: settings.endpoint.split('?')[0], // a query may carry a token
    sampler: settings.sampler,
    samplerArg: settings.samplerArg,
    serviceName: settings.serviceName,
  });
  const { startTracing } = await import('./tracer');
  return startTracing(settings, log, SVC_VERSION);
}
