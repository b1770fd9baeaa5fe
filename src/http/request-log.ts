import { Elysia } from 'elysia';
import { statusOf } from './status';
import type { RequestContext } from './request-context';
import type { RequestRecord, RequestRecorder } from '../request-log/writer';
import type { Logger } from '../log';
import { observeRequest } from '../metrics';
import { openStreamOf, type StreamEnd } from '../stream/open-streams';
import { stageDurations } from '../request-log/stages';
import type { Tracing } from '../tracing';

/** What the after-response hook reads; destructured, so Elysia parses nothing else for it. */
interface Answered {
  request: Request;
  route: string;
  set: { status?: number | string; headers: Record<string, unknown> };
  responseValue: unknown;
  svc?: RequestContext;
  /** What a failed request threw (Elysia leaves `responseValue` empty then). */
  error?: unknown;
}

type Usage = { prompt_tokens?: unknown; completion_tokens?: unknown };

/** The `usage` a JSON answer reports (chat, responses, embeddings), if any. */
function usageOf(value: unknown): Usage | undefined {
  return value && typeof value === 'object' && !(value instanceof Response) ? (value as { usage?: Usage }).usage : undefined;
}

/** A token count of `usage`, or null. */
const promptTokensOf = (usage: Usage | undefined): number | null => (typeof usage?.prompt_tokens === 'number' ? usage.prompt_tokens : null);
const completionTokensOf = (usage: Usage | undefined): number | null =>
  typeof usage?.completion_tokens === 'number' ? usage.completion_tokens : null;

/** The path of an absolute URL, without its query (which may carry values that do not belong in a log). */
function pathOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  if (start < 0) return '/';
  const query = url.indexOf('?', start);
  return query < 0 ? url.slice(start) : url.slice(start, query);
}

const elapsedMs = (from: number) => Math.round((performance.now() - from) * 100) / 100;

/** Where request records go (the request log, the traces) and what they need besides the access line. */
export interface RecordSink {
  /** The request log's writer; null when the log is off. */
  recorder: RequestRecorder | null;
  /** The traces; null when tracing is off. */
  tracing: Tracing | null;
  now: () => number;
  /** The client's address (the socket's, or the trusted proxy's X-Forwarded-For hop). */
  clientIp: (request: Request) => string | null;
}

/** The `error` string of an error answer: its JSON body's, or the thrown error's body's or message. */
function errorOf(status: number, value: unknown): string | null {
  if (status < 400 || !value || typeof value !== 'object' || value instanceof Response) return null;
  const body = value instanceof Error ? (value as { body?: unknown }).body : value;
  const error = body && typeof body === 'object' ? (body as { error?: unknown }).error : undefined;
  if (typeof error === 'string') return error;
  return value instanceof Error ? value.message : null;
}

/**
 * Counts and times every answered request (`svc_http_requests_total`, latency histogram),
 * writes one access-log line per request (method, route, path, status, duration, request id,
 * account, model and tokens) and queues one request-log record. A streamed answer is logged
 * when its stream ends, with its tokens and how it ended; its latency metric is the time to
 * the headers.
 */
export function requestLog(log: Logger, opts: { accessLog: boolean; records?: RecordSink | null }) {
  // Decided once: a line the logger would drop (level above info) is not even built.
  const accessLog = opts.accessLog && (log.enabled?.('info') ?? true);
  const sink = opts.records ?? null;
  return new Elysia({ name: 'svc.http.request-log' }).onAfterResponse(
    { as: 'global' },
    function observeAnswer({ request, route, set, responseValue, svc, error }: Answered) {
      // The request context's start (stage 1); an unmatched route never gets one and is counted untimed.
      const start = svc?.startedAt;
      const status = statusOf(set, responseValue);
      const pattern = route || 'unmatched';
      observeRequest(request.method, pattern, status, start === undefined ? null : (performance.now() - start) / 1000);
      if (!accessLog && !sink) return;
      const requestId = set.headers['cf-ray'];
      const accountId = svc?.caller?.accountId ?? null;
      const model = (set.headers['x-svc-model-id'] as string | undefined) ?? null;
      const stream = responseValue instanceof Response ? openStreamOf(responseValue.body) : undefined;
      const ms = start === undefined ? null : elapsedMs(start);
      const capture = svc?.capture;
      const error_ = sink && errorOf(status, responseValue ?? error);
      if (!stream || start === undefined) {
        const usage = usageOf(responseValue);
        if (sink) {
          // Built once, complete: the answer is in hand.
          const done = recordOf(sink, request, pattern, status, requestId, accountId, model, set.headers, svc, error_);
          finish(done, svc, ms, null, promptTokensOf(usage), completionTokensOf(usage), null, set.headers);
          const bodies = capture && {
            request: capture.request,
            response: answerBody(capture.response ?? responseValue ?? error),
            maxBytes: capture.maxBytes,
          };
          sink.recorder?.add(done, undefined, bodies);
          if (svc?.trace) sink.tracing?.add(svc, done, performance.now(), finishReasonsOf(responseValue));
        }
        if (accessLog)
          log.info('request', {
            ...accessLine(request, pattern, status, requestId, svc, accountId, model),
            ms,
            promptTokens: promptTokensOf(usage),
            completionTokens: completionTokensOf(usage),
          });
        return;
      }
      // The parts known when the headers leave; the rest when the stream ends (the record is this request's alone, so completed in place).
      const record = sink && recordOf(sink, request, pattern, status, requestId, accountId, model, set.headers, svc, error_);
      stream.onEnd(function logStreamEnd(end: StreamEnd) {
        const outcome = end.aborted ? 'client_gone' : end.error ? 'error' : 'complete';
        const total = elapsedMs(start);
        if (record) {
          record.error ??= end.error ?? null;
          const done = finish(record, svc, total, ms, end.promptTokens, end.completionTokens, outcome, set.headers);
          // The settlement (its tokens, cost and time) lands after the end is reported: read when the row is written.
          const late = svc ? () => lateFields(svc, done, set.headers) : undefined;
          const text = capture && end.text?.();
          const bodies = capture && { request: capture.request, response: text?.text, responseCut: text?.cut, maxBytes: capture.maxBytes };
          sink.recorder?.add(done, late, bodies);
          if (svc?.trace) sink.tracing?.add(svc, done, performance.now(), end.finishReasons ?? null, late);
        }
        if (!accessLog) return;
        log.info('request', {
          ...accessLine(request, pattern, status, requestId, svc, accountId, model),
          ms: total,
          headersMs: ms,
          promptTokens: end.promptTokens,
          completionTokens: end.completionTokens,
          stream: outcome,
        });
      });
    },
  );
}

/** The access line's fields (its times and tokens added by the caller); built only when the access log is on. */
function accessLine(
  request: Request,
  route: string,
  status: number,
  requestId: unknown,
  svc: RequestContext | undefined,
  accountId: string | null,
  model: string | null,
) {
  return {
    method: request.method,
    route,
    path: pathOf(request.url),
    status,
    requestId,
    // Undefined (left out of the line) when tracing is off.
    traceId: svc?.trace?.traceId,
    accountId,
    model,
  };
}

/** The answer as a captured body: a JSON value, or a thrown error's body; nothing for bytes (audio, images, files). */
function answerBody(value: unknown): unknown {
  if (value instanceof Response || value instanceof Blob || value instanceof Uint8Array) return undefined;
  return value instanceof Error ? (value as { body?: unknown }).body : value;
}

/** The parts of a record known when the headers leave; `finish` completes it. */
function recordOf(
  sink: RecordSink,
  request: Request,
  route: string,
  status: number,
  requestId: unknown,
  accountId: string | null,
  model: string | null,
  headers: Record<string, unknown>,
  svc: RequestContext | undefined,
  error: string | null,
): RequestRecord {
  return {
    requestId: String(requestId),
    // When the request arrived: `now` less the time it took to answer.
    at: svc ? Math.round(sink.now() - (performance.now() - svc.startedAt)) : sink.now(),
    accountId,
    apiKeyId: svc?.caller?.apiKey?.id ?? null,
    method: request.method,
    route,
    model,
    replica: (headers['x-svc-model-router'] as string | undefined) ?? null,
    status,
    error,
    latencyMs: 0,
    ttfbMs: null,
    stream: null,
    stages: null,
    upstreamMs: null,
    cache: null,
    guardrails: null,
    promptTokens: null,
    completionTokens: null,
    costMicros: null,
    currency: null,
    clientIp: sink.clientIp(request),
    userAgent: request.headers.get('user-agent'),
  };
}

/**
 * Completes `record` in place once the answer is complete (it is this request's alone): its
 * times, stages and outcomes, and the settlement's tokens and cost (else the answer's own counts).
 */
function finish(
  record: RequestRecord,
  svc: RequestContext | undefined,
  ms: number | null,
  ttfbMs: number | null,
  promptTokens: number | null,
  completionTokens: number | null,
  stream: string | null,
  headers: Record<string, unknown>,
): RequestRecord {
  const settled = svc?.settled;
  record.latencyMs = Math.round(ms ?? 0);
  record.ttfbMs = ttfbMs === null ? null : Math.round(ttfbMs);
  record.stream = stream;
  writeStages(record, svc);
  writeOutcomes(record, headers);
  record.promptTokens = settled?.promptTokens ?? promptTokens;
  record.completionTokens = settled?.completionTokens ?? completionTokens;
  record.costMicros = settled?.costMicros ?? null;
  record.currency = settled?.currency ?? null;
  return record;
}

/** Writes the stage durations of a request and its upstream time. */
function writeStages(into: Partial<Pick<RequestRecord, 'stages' | 'upstreamMs'>>, svc: RequestContext | undefined): void {
  if (!svc) return;
  const stages = stageDurations(svc);
  into.stages = stages;
  into.upstreamMs = stages.upstream_ms === null ? null : Math.round(stages.upstream_ms);
}

/** Writes what the cache and the guardrails said (their plugins' headers), when they ran. */
function writeOutcomes(into: Partial<Pick<RequestRecord, 'cache' | 'guardrails'>>, headers: Record<string, unknown>): void {
  const cache = headers['x-svc-cache'];
  const guardrails = headers['x-svc-guardrails'];
  into.cache = typeof cache === 'string' ? cache : null;
  into.guardrails = typeof guardrails === 'string' ? guardrails : null;
}

/** `finish_reason` of each choice of a JSON chat answer (the traces' gen_ai.response.finish_reasons); null for any other answer. */
function finishReasonsOf(value: unknown): string[] | null {
  const choices = value && typeof value === 'object' ? (value as { choices?: unknown }).choices : undefined;
  if (!Array.isArray(choices)) return null;
  const reasons = choices
    .map((c: { finish_reason?: unknown } | null) => c?.finish_reason)
    .filter((r): r is string => typeof r === 'string');
  return reasons.length > 0 ? reasons : null;
}

/**
 * What a stream's record learns after its end is reported, read when the record is written:
 * the settlement (tokens, cost), the stages it ended (settlement, so upstream) and the
 * outcomes a response-side guardrail noted at the end.
 */
function lateFields(svc: RequestContext, record: RequestRecord, headers: Record<string, unknown>): Partial<RequestRecord> {
  const s = svc.settled;
  const late: Partial<RequestRecord> = s
    ? {
        promptTokens: s.promptTokens ?? record.promptTokens,
        completionTokens: s.completionTokens,
        costMicros: s.costMicros,
        currency: s.currency,
      }
    : {};
  writeStages(late, svc);
  writeOutcomes(late, headers);
  return late;
}
