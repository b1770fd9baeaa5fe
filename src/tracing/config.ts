import { Type as T, type Static } from '@sinclair/typebox';
import { ConfigError } from '../config-fields';

/** The samplers of the OpenTelemetry SDK's `OTEL_TRACES_SAMPLER`. */
export const SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;
/** One of SAMPLERS. */
export type SamplerName = (typeof SAMPLERS)[number];

/** Config `observability.tracing`: OpenTelemetry traces over OTLP/HTTP (the `OTEL_*` variables win over these fields). */
export const TracingConfigSchema = T.Object(
  {
    enabled: T.Boolean({
      description: 'Export traces (off by default; `OTEL_TRACES_EXPORTER=otlp` turns it on, `none` off).',
      default: false,
    }),
    endpoint: T.String({
      description:
        "The collector's OTLP/HTTP traces URL (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, or `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`).",
      minLength: 1,
      default: 'http://localhost:4318/v1/traces',
    }),
    headers: T.Record(T.String({ minLength: 1 }), T.String(), {
      description:
        "Headers sent with every export, e.g. a collector's auth (`OTEL_EXPORTER_OTLP_TRACES_HEADERS` / `OTEL_EXPORTER_OTLP_HEADERS`: `k=v,k2=v2`).",
      default: {},
    }),
    serviceName: T.String({ description: "The resource's `service.name` (`OTEL_SERVICE_NAME`).", minLength: 1, default: 'svc' }),
    sampler: T.Union(
      SAMPLERS.map((s) => T.Literal(s)),
      {
        description: "Which requests are traced (`OTEL_TRACES_SAMPLER`); the parentbased ones follow a client's sampled flag.",
        default: 'parentbased_always_on',
      },
    ),
    samplerArg: T.Number({
      description: 'The ratio of the traceidratio samplers, 0 to 1 (`OTEL_TRACES_SAMPLER_ARG`).',
      minimum: 0,
      maximum: 1,
      default: 1,
    }),
    exportIntervalMs: T.Integer({
      description: 'How often finished requests become spans and a batch is exported, in ms.',
      minimum: 10,
      default: 1000,
    }),
    maxQueued: T.Integer({
      description: 'Requests waiting to become spans beyond this are dropped (never an unbounded heap).',
      minimum: 1,
      default: 20_000,
    }),
  },
  { default: {} },
);
/** The validated `observability.tracing` section. */
export type TracingConfig = Static<typeof TracingConfigSchema>;

/** Tracing as it runs: the config section with the `OTEL_*` variables applied. */
export interface TracingSettings {
  endpoint: string;
  headers: Record<string, string>;
  serviceName: string;
  sampler: SamplerName;
  samplerArg: number;
  exportIntervalMs: number;
  maxQueued: number;
}

type Env = Record<string, string | undefined>;

/** `k=v,k2=v2` (values URL-encoded), as the OTLP exporters' `*_HEADERS` variables are written. */
function headersOf(text: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of (text ?? '').split(',')) {
    const eq = pair.indexOf('=');
    if (eq > 0) out[decodeURIComponent(pair.slice(0, eq).trim())] = decodeURIComponent(pair.slice(eq + 1).trim());
  }
  return out;
}

/** Whether traces are exported: `OTEL_SDK_DISABLED`, then `OTEL_TRACES_EXPORTER`, then the config's `enabled`. */
function tracingOn(config: TracingConfig, env: Env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporters = env.OTEL_TRACES_EXPORTER?.split(',').map((e) => e.trim().toLowerCase());
  if (!exporters || exporters.every((e) => e === '')) return config.enabled;
  if (exporters.includes('none')) return false;
  const unknown = exporters.filter((e) => e !== 'otlp');
  if (unknown.length > 0) throw new ConfigError(`OTEL_TRACES_EXPORTER: svc exports traces with otlp (or none), not ${unknown.join(', ')}`);
  return true;
}

/** The sampler the variables name, with its ratio (a ConfigError for an unknown one or a ratio outside 0..1). */
function samplerOf(config: TracingConfig, env: Env): { sampler: SamplerName; samplerArg: number } {
  const name = env.OTEL_TRACES_SAMPLER?.trim().toLowerCase() || config.sampler;
  if (!(SAMPLERS as readonly string[]).includes(name))
    throw new ConfigError(`OTEL_TRACES_SAMPLER: expected one of ${SAMPLERS.join(', ')}; got ${name}`);
  const arg = env.OTEL_TRACES_SAMPLER_ARG?.trim();
  const ratio = arg ? Number(arg) : config.samplerArg;
  if (!(ratio >= 0 && ratio <= 1)) throw new ConfigError(`OTEL_TRACES_SAMPLER_ARG: expected a ratio from 0 to 1; got ${arg}`);
  return { sampler: name as SamplerName, samplerArg: ratio };
}

/**
 * Tracing's settings from `observability.tracing` and the standard `OTEL_*` variables (which
 * win, as with any OpenTelemetry SDK), or null when tracing is off (the default).
 */
export function tracingSettings(config: TracingConfig, env: Env = process.env): TracingSettings | null {
  if (!tracingOn(config, env)) return null;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || (base ? `${base.replace(/\/+$/, '')}/v1/traces` : config.endpoint);
  return {
    endpoint,
    headers: { ...config.headers, ...headersOf(env.OTEL_EXPORTER_OTLP_HEADERS), ...headersOf(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS) },
    serviceName: env.OTEL_SERVICE_NAME?.trim() || config.serviceName,
    ...samplerOf(config, env),
    exportIntervalMs: config.exportIntervalMs,
    maxQueued: config.maxQueued,
  };
}
