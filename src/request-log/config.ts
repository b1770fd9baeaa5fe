import { Type as T, type Static } from '@sinclair/typebox';
import { parseConfigSection, type Config } from '../config';
import { TracingConfigSchema } from '../tracing/config';

const UUID = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

/** Config `observability`: the request log, the spend series of /metrics and OpenTelemetry tracing. */
export const ObservabilityConfigSchema = T.Object({
  requestLog: T.Object(
    {
      /** One row per API request in `request_log` (bodies only as `bodies` below asks). */
      enabled: T.Boolean({ default: true }),
      /** Rows older than this are deleted by the sweeper. */
      retentionDays: T.Integer({ minimum: 1, maximum: 3650, default: 30 }),
      /** How often queued rows are written, and at most how many per statement. */
      flushIntervalMs: T.Integer({ minimum: 10, default: 1000 }),
      batchSize: T.Integer({ minimum: 1, maximum: 5000, default: 500 }),
      /** Rows waiting beyond this are dropped (counted in svc_request_log_dropped_total): the log never grows the heap without bound. */
      maxQueued: T.Integer({ minimum: 1, default: 50_000 }),
      /** How often the sweeper deletes rows past the retention. */
      sweepIntervalMs: T.Integer({ minimum: 1000, default: 3_600_000 }),
      /**
       * Request and response bodies, stored (PII redacted, cut at `maxBytes`) in
       * `request_log_bodies` only for the listed accounts and keys; none by default.
       */
      bodies: T.Object(
        {
          /** Account ids whose requests' bodies are stored (every key of the account). */
          accounts: T.Array(T.String({ pattern: UUID }), { default: [], maxItems: 1000 }),
          /** API key ids whose requests' bodies are stored. */
          keys: T.Array(T.String({ pattern: UUID }), { default: [], maxItems: 1000 }),
          /** Each body is cut at this many bytes of UTF-8 (the cut is marked); a stream's text comes from its first 64 KiB of events at most. */
          maxBytes: T.Integer({ minimum: 256, maximum: 1_048_576, default: 16_384 }),
        },
        { default: {} },
      ),
    },
    { default: {} },
  ),
  spendMetrics: T.Object(
    {
      /** Key ids and account ids that get their own spend series; every other one is counted as `other`. */
      keys: T.Array(T.String({ minLength: 1 }), { default: [], maxItems: 1000 }),
      accounts: T.Array(T.String({ minLength: 1 }), { default: [], maxItems: 1000 }),
      /** Besides the lists: the N biggest spenders of the last interval get their own series (0: off). */
      topN: T.Integer({ minimum: 0, maximum: 1000, default: 0 }),
      intervalMs: T.Integer({ minimum: 1000, default: 60_000 }),
    },
    { default: {} },
  ),
  tracing: TracingConfigSchema,
});
/** The validated `observability` section. */
export type ObservabilityConfig = Static<typeof ObservabilityConfigSchema>;

/** The observability section of the config, validated (a bad field stops the start). */
export function observabilityConfigOf(config: Config): ObservabilityConfig {
  return parseConfigSection(ObservabilityConfigSchema, config.observability, 'observability');
}
