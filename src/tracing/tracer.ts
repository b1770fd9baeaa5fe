import { ROOT_CONTEXT, SpanKind, trace, type Context } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  SamplingDecision,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type Sampler,
} from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import { requestIdKey } from '../http/request-ids';
import type { RequestContext } from '../http/request-context';
import type { Logger } from '../log';
import type { RequestRecord } from '../request-log/writer';
import type { SamplerName, TracingSettings } from './config';
import { PresetIds } from './ids';
import { buildSpans, type SpanSource } from './spans';
import type { TraceState } from './state';
import { formatTraceparent, parseTraceparent } from './traceparent';

/** The sampler `OTEL_TRACES_SAMPLER` names. */
function samplerOf(name: SamplerName, ratio: number): Sampler {
  const root = name.endsWith('always_off')
    ? new AlwaysOffSampler()
    : name.endsWith('traceidratio')
      ? new TraceIdRatioBasedSampler(ratio)
      : new AlwaysOnSampler();
  return name.startsWith('parentbased_') ? new ParentBasedSampler({ root }) : root;
}

/** A finished request waiting to become spans, with what its record learns late (a stream's settlement). */
interface Queued {
  source: SpanSource;
  late: (() => Partial<RequestRecord> | null) | undefined;
}

/** Live requests whose trace ids log lines look up, at most this many (a request that never ended cannot grow it forever). */
const MAX_LIVE = 100_000;

/** OpenTelemetry tracing of requests (src/tracing): only built when tracing is on. */
export interface Tracing {
  /** Decides a new request's trace ids (continuing the client's `traceparent`) and whether it is sampled. */
  begin(request: Request, requestId: string): TraceState;
  /** Queues a finished request; its spans are built on the next export tick, off the response's path. */
  add(
    svc: RequestContext,
    record: RequestRecord,
    endedAt: number,
    finishReasons: string[] | null,
    late?: () => Partial<RequestRecord> | null,
  ): void;
  /** The trace id of a request still being answered (log lines carry it). */
  traceIdOf(requestId: unknown): string | undefined;
  /** Builds the queued spans and exports everything pending. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts tracing: an SDK tracer provider with a batch processor and the OTLP/HTTP (JSON)
 * exporter, never registered as the process-wide provider (each app owns its own). Spans are
 * built after the answer from the stage marks, on a timer: a request pays for its ids, the
 * sampler's decision and one queue push, and no span object lives while it is answered.
 */
export function startTracing(settings: TracingSettings, log: Logger, version: string): Tracing {
  const ids = new PresetIds();
  const sampler = samplerOf(settings.sampler, settings.samplerArg);
  const exporter = new OTLPTraceExporter({ url: settings.endpoint, headers: settings.headers });
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: settings.serviceName, [ATTR_SERVICE_VERSION]: version }),
    // The sampler decided when the request arrived (the upstream was told): every span built is kept.
    sampler: new AlwaysOnSampler(),
    idGenerator: ids,
    spanProcessors: [
      new BatchSpanProcessor({ exporter, scheduledDelayMillis: settings.exportIntervalMs, maxQueueSize: settings.maxQueued * 8 }),
    ],
  });
  const tracer = provider.getTracer('svc', version);
  const live = new Map<string | number, string>();
  let queue: Queued[] = [];
  let dropped = 0;

  function build(): void {
    const taken = queue;
    queue = [];
    for (const q of taken) {
      const late = q.late?.();
      if (late) q.source.record = { ...q.source.record, ...late };
      try {
        buildSpans(tracer, ids, q.source);
      } catch (error) {
        log.warn('tracing: the spans of a request could not be built', { requestId: q.source.record.requestId, error: String(error) });
      }
    }
    if (dropped > 0) {
      log.warn('tracing: requests beyond observability.tracing.maxQueued were not traced', { dropped });
      dropped = 0;
    }
  }

  const timer = setInterval(build, settings.exportIntervalMs);
  timer.unref?.();

  return {
    begin(request, requestId) {
      const parent = parseTraceparent(request.headers.get('traceparent'));
      const traceId = parent?.traceId ?? ids.traceId();
      const context: Context = parent
        ? trace.setSpanContext(ROOT_CONTEXT, { traceId, spanId: parent.spanId, traceFlags: parent.sampled ? 1 : 0, isRemote: true })
        : ROOT_CONTEXT;
      const sampled =
        sampler.shouldSample(context, traceId, 'request', SpanKind.SERVER, {}, []).decision === SamplingDecision.RECORD_AND_SAMPLED;
      const upstreamSpanId = ids.spanId();
      if (live.size >= MAX_LIVE) live.clear();
      live.set(requestIdKey(requestId), traceId);
      return {
        traceId,
        spanId: ids.spanId(),
        parentSpanId: parent?.spanId ?? null,
        upstreamSpanId,
        upstreamTraceparent: formatTraceparent(traceId, upstreamSpanId, sampled),
        sampled,
        requestModel: null,
      };
    },
    add(svc, record, endedAt, finishReasons, late) {
      const t = svc.trace;
      if (!t) return;
      live.delete(requestIdKey(svc.requestId));
      if (!t.sampled) return;
      if (queue.length >= settings.maxQueued) {
        dropped++;
        return;
      }
      queue.push({ source: { svc: svc as SpanSource['svc'], record, endedAt, finishReasons }, late });
    },
    traceIdOf(requestId) {
      return typeof requestId === 'string' ? live.get(requestIdKey(requestId)) : undefined;
    },
    async flush() {
      build();
      await provider.forceFlush();
    },
    async close() {
      clearInterval(timer);
      build();
      await provider.shutdown().catch((error: unknown) => log.warn('tracing: the last export failed', { error: String(error) }));
    },
  };
}
