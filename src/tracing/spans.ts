import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type HrTime, type Tracer } from '@opentelemetry/api';
import {
  ATTR_CLIENT_ADDRESS,
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_USER_AGENT_ORIGINAL,
} from '@opentelemetry/semantic-conventions';
import type { RequestContext } from '../http/request-context';
import type { StageMarks } from '../request-log/stages';
import type { RequestRecord } from '../request-log/writer';
import type { PresetIds } from './ids';
import type { TraceState } from './state';

// The GenAI conventions are still "incubating" in @opentelemetry/semantic-conventions; its
// README asks users to copy such names rather than import the unstable entry point.
const GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
const GEN_AI_PROVIDER_NAME = 'gen_ai.provider.name';
const GEN_AI_REQUEST_MODEL = 'gen_ai.request.model';
const GEN_AI_RESPONSE_MODEL = 'gen_ai.response.model';
const GEN_AI_USAGE_INPUT_TOKENS = 'gen_ai.usage.input_tokens';
const GEN_AI_USAGE_OUTPUT_TOKENS = 'gen_ai.usage.output_tokens';
const GEN_AI_RESPONSE_FINISH_REASONS = 'gen_ai.response.finish_reasons';

/** A finished request as the spans are built from it (after the answer, off its path). */
export interface SpanSource {
  /** A context made by the request-id gate (every mark written) and traced. */
  svc: RequestContext & Required<StageMarks> & { trace: TraceState };
  record: RequestRecord;
  /** performance.now() at the answer's end (a stream's last byte). */
  endedAt: number;
  /** `choices[].finish_reason` of a JSON answer, or those a stream carried (read from its bytes); null when none. */
  finishReasons: string[] | null;
}

/** The GenAI operation of a route (`chat`, `embeddings`), or null for a route that calls no model. */
function operationOf(route: string): string {
  if (route.endsWith('/chat/completions') || route.endsWith('/responses')) return 'chat';
  if (route.endsWith('/embeddings')) return 'embeddings';
  return 'generate_content';
}

/** The GenAI attributes of a request that called a model; empty for one that did not. */
function genAiAttributes(s: SpanSource): Attributes {
  const r = s.record;
  if (!r.model) return {};
  const out: Attributes = {
    [GEN_AI_OPERATION_NAME]: operationOf(r.route),
    [GEN_AI_REQUEST_MODEL]: s.svc.trace.requestModel ?? r.model,
    [GEN_AI_RESPONSE_MODEL]: r.model,
  };
  if (r.replica) out[GEN_AI_PROVIDER_NAME] = r.replica;
  if (r.promptTokens !== null) out[GEN_AI_USAGE_INPUT_TOKENS] = r.promptTokens;
  if (r.completionTokens !== null) out[GEN_AI_USAGE_OUTPUT_TOKENS] = r.completionTokens;
  if (s.finishReasons) out[GEN_AI_RESPONSE_FINISH_REASONS] = s.finishReasons;
  return out;
}

/** svc's own attributes: the request id, the caller (ids only, never a secret), the charge and the outcomes. */
function svcAttributes(r: RequestRecord): Attributes {
  const out: Attributes = { 'svc.request_id': r.requestId };
  if (r.accountId) out['svc.account_id'] = r.accountId;
  if (r.apiKeyId) out['svc.api_key_id'] = r.apiKeyId;
  if (r.costMicros !== null) out['svc.cost_micros'] = r.costMicros;
  if (r.currency) out['svc.currency'] = r.currency;
  if (r.stream) out['svc.stream'] = r.stream;
  if (r.cache) out['svc.cache'] = r.cache;
  if (r.guardrails) out['svc.guardrails'] = r.guardrails;
  return out;
}

/**
 * A performance.now() reading as an absolute time. Handed a number, the SDK corrects it by an
 * offset each span takes from Date.now() when it is made (whole milliseconds), so a child could
 * end up to 1 ms after its parent; absolute times from one origin keep the marks' order.
 */
function at(mark: number): HrTime {
  const ms = performance.timeOrigin + mark;
  const seconds = Math.floor(ms / 1000);
  return [seconds, Math.floor((ms - seconds * 1000) * 1e6)];
}

/** A finished child span of `parent` from `start` to `end` (performance.now() readings), skipped when a mark is missing. */
function child(tracer: Tracer, parent: Context, name: string, start: number, end: number, kind = SpanKind.INTERNAL): void {
  if (start > 0 && end >= start) tracer.startSpan(name, { kind, startTime: at(start) }, parent).end(at(end));
}

/**
 * Builds one request's trace: the server span (the client's span as its parent when it sent a
 * `traceparent`) with a child span per stage it reached (auth, admission, plugins, settlement)
 * and the upstream call's CLIENT span, which carries the ids the upstream was sent. Spans are
 * started and ended here with the recorded times: no span lives across the request.
 */
export function buildSpans(tracer: Tracer, ids: PresetIds, s: SpanSource): void {
  const { svc, record: r } = s;
  const t = svc.trace;
  const parent = t.parentSpanId
    ? trace.setSpanContext(ROOT_CONTEXT, { traceId: t.traceId, spanId: t.parentSpanId, traceFlags: 1, isRemote: true })
    : ROOT_CONTEXT;
  const genAi = genAiAttributes(s);
  const attributes: Attributes = {
    [ATTR_HTTP_REQUEST_METHOD]: r.method,
    [ATTR_HTTP_ROUTE]: r.route,
    [ATTR_HTTP_RESPONSE_STATUS_CODE]: r.status,
    ...genAi,
    ...svcAttributes(r),
  };
  if (r.clientIp) attributes[ATTR_CLIENT_ADDRESS] = r.clientIp;
  if (r.userAgent) attributes[ATTR_USER_AGENT_ORIGINAL] = r.userAgent;
  ids.preset(t.traceId, t.spanId);
  const server = tracer.startSpan(`${r.method} ${r.route}`, { kind: SpanKind.SERVER, startTime: at(svc.startedAt), attributes }, parent);
  // A 4xx is the client's error, not the server span's (HTTP conventions); a 5xx or a broken stream is.
  if (r.status >= 500 || r.stream === 'error') {
    server.setAttribute(ATTR_ERROR_TYPE, r.status >= 500 ? String(r.status) : 'stream_error');
    server.setStatus({ code: SpanStatusCode.ERROR, message: r.error ?? undefined });
  }
  const inServer = trace.setSpan(ROOT_CONTEXT, server);
  child(tracer, inServer, 'svc.auth', svc.authStart, svc.authEnd);
  child(tracer, inServer, 'svc.admission', svc.admissionStart, svc.admissionEnd);
  child(tracer, inServer, 'svc.plugins', svc.pluginsStart, svc.pluginsEnd);
  if (svc.upstreamStart > 0) {
    const end = svc.settlementStart || svc.upstreamFirstByte || s.endedAt;
    ids.preset(t.traceId, t.upstreamSpanId);
    const name = r.model ? `${genAi[GEN_AI_OPERATION_NAME]} ${r.model}` : 'upstream';
    const upstream = tracer.startSpan(name, { kind: SpanKind.CLIENT, startTime: at(svc.upstreamStart), attributes: genAi }, inServer);
    if (svc.upstreamFirstByte > 0) upstream.addEvent('svc.upstream.first_byte', at(svc.upstreamFirstByte));
    if (svc.upstreamFirstByte === 0 && r.error) upstream.setStatus({ code: SpanStatusCode.ERROR, message: r.error });
    upstream.end(at(end));
  }
  child(tracer, inServer, 'svc.settlement', svc.settlementStart, svc.settlementEnd);
  server.end(at(Math.max(s.endedAt, svc.settlementEnd)));
}
