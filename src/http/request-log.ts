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

/** Token counts of a JSON answer that reports `usage` (chat, responses, embeddings). */
function tokensOf(value: unknown): { promptTokens: number | null; completionTokens: number | null } {
  const usage = value && typeof value === 'object' && !(value instanceof Response) ? (value as { usage?: Usage }).usage : undefined;
  const count = (n: unknown) => (typeof n === 'number' ? n : null);
  return { promptTokens: count(usage?.prompt_tokens), completionTokens: count(usage?.completion_tokens) };
}

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
      const line = {
        method: request.method,
        route: pattern,
        path: pathOf(request.url),
        status,
        requestId: set.headers['cf-ray'],
        // Undefined (left out of the line) when tracing is off.
        traceId: svc?.trace?.traceId,
        accountId: svc?.caller?.accountId ?? null,
        model: (set.headers['x-svc-model-id'] as string | undefined) ?? null,
      };
      const record = sink && recordOf(sink, request, line, set.headers, svc, errorOf(status, responseValue ?? error));
      const stream = responseValue instanceof Response ? openStreamOf(responseValue.body) : undefined;
      const ms = start === undefined ? null : elapsedMs(start);
      const capture = svc?.capture;
      if (!stream || start === undefined) {
        if (record) {
          const done = finished(record, svc, ms, null, tokensOf(responseValue), null, set.headers);
          const bodies = capture && {
            request: capture.request,
            response: answerBody(capture.response ?? responseValue ?? error),
            maxBytes: capture.maxBytes,
          };
          sink.recorder?.add(done, undefined, bodies);
          if (svc?.trace) sink.tracing?.add(svc, done, performance.now(), finishReasonsOf(responseValue));
        }
        if (accessLog) log.info('request', { ...line, ms, ...tokensOf(responseValue) });
        return;
      }
      stream.onEnd(function logStreamEnd(end: StreamEnd) {
        const outcome = end.aborted ? 'client_gone' : end.error ? 'error' : 'complete';
        const total = elapsedMs(start);
        if (record) {
          const done = finished({ ...record, error: record.error ?? end.error }, svc, total, ms, end, outcome, set.headers);
          // The settlement (its tokens, cost and time) lands after the end is reported: read when the row is written.
          const late = svc ? () => lateFields(svc, done, set.headers) : undefined;
          const text = capture && end.text?.();
          const bodies = capture && { request: capture.request, response: text?.text, responseCut: text?.cut, maxBytes: capture.maxBytes };
          sink.recorder?.add(done, late, bodies);
          if (svc?.trace) sink.tracing?.add(svc, done, performance.now(), end.finishReasons ?? null, late);
        }
        if (!accessLog) return;
        log.info('request', {
          ...line,
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

type Line = { method: string; route: string; status: number; requestId: unknown; accountId: string | null; model: string | null };
type Tokens = { promptTokens: number | null; completionTokens: number | null };

/** The answer as a captured body: a JSON value, or a thrown error's body; nothing for bytes (audio, images, files). */
function answerBody(value: unknown): unknown {
  if (value instanceof Response || value instanceof Blob || value instanceof Uint8Array) return undefined;
  return value instanceof Error ? (value as { body?: unknown }).body : value;
}

/** The parts of a record known when the headers leave. */
function recordOf(
  sink: RecordSink,
  request: Request,
  line: Line,
  headers: Record<string, unknown>,
  svc: RequestContext | undefined,
  error: string | null,
): RequestRecord {
  return {
    requestId: String(line.requestId),
    // When the request arrived: `now` less the time it took to answer.
    at: svc ? Math.round(sink.now() - (performance.now() - svc.startedAt)) : sink.now(),
    accountId: line.accountId,
    apiKeyId: svc?.caller?.apiKey?.id ?? null,
    method: line.method,
    route: line.route,
    model: line.model,
    replica: (headers['x-svc-model-router'] as string | undefined) ?? null,
    status: line.status,
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

/** The record once the answer is complete: its times, and the settlement's tokens and cost (else the answer's own counts). */
function finished(
  record: RequestRecord,
  svc: RequestContext | undefined,
  ms: number | null,
  ttfbMs: number | null,
  tokens: Tokens,
  stream: string | null,
  headers: Record<string, unknown>,
): RequestRecord {
  const settled = svc?.settled;
  return {
    ...record,
    latencyMs: Math.round(ms ?? 0),
    ttfbMs: ttfbMs === null ? null : Math.round(ttfbMs),
    stream,
    ...stagesOf(svc),
    ...outcomesOf(headers),
    promptTokens: settled?.promptTokens ?? tokens.promptTokens,
    completionTokens: settled?.completionTokens ?? tokens.completionTokens,
    costMicros: settled?.costMicros ?? null,
    currency: settled?.currency ?? null,
  };
}

/** The stage durations of a request and its upstream time. */
function stagesOf(svc: RequestContext | undefined): Pick<RequestRecord, 'stages' | 'upstreamMs'> {
  if (!svc) return { stages: null, upstreamMs: null };
  const stages = stageDurations(svc);
  return { stages, upstreamMs: stages.upstream_ms === null ? null : Math.round(stages.upstream_ms) };
}

/** What the cache and the guardrails said (their plugins' headers), when they ran. */
function outcomesOf(headers: Record<string, unknown>): Pick<RequestRecord, 'cache' | 'guardrails'> {
  const cache = headers['x-svc-cache'];
  const guardrails = headers['x-svc-guardrails'];
  return { cache: typeof cache === 'string' ? cache : null, guardrails: typeof guardrails === 'string' ? guardrails : null };
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
  const settled = s
    ? {
        promptTokens: s.promptTokens ?? record.promptTokens,
        completionTokens: s.completionTokens,
        costMicros: s.costMicros,
        currency: s.currency,
      }
    : null;
  return { ...settled, ...stagesOf(svc), ...outcomesOf(headers) };
}
