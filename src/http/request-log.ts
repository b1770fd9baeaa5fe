import { Elysia } from 'elysia';
import { statusOf } from './status';
import type { RequestContext } from './request-context';
import type { Logger } from '../log';
import { observeRequest } from '../metrics';
import { openStreamOf, type StreamEnd } from '../stream/open-streams';

/** What the after-response hook reads; destructured, so Elysia parses nothing else for it. */
interface Answered {
  request: Request;
  route: string;
  set: { status?: number | string; headers: Record<string, unknown> };
  responseValue: unknown;
  svc?: RequestContext;
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

/**
 * Counts and times every answered request (`svc_http_requests_total`, latency histogram)
 * and writes one access-log line per request: method, route, path, status, duration,
 * request id, account, model and tokens. A streamed answer is logged when its stream ends,
 * with its tokens and how it ended; its latency metric is the time to the headers.
 */
export function requestLog(log: Logger, opts: { accessLog: boolean }) {
  // Decided once: a line the logger would drop (level above info) is not even built.
  const accessLog = opts.accessLog && (log.enabled?.('info') ?? true);
  return new Elysia({ name: 'svc.http.request-log' }).onAfterResponse(
    { as: 'global' },
    function observeAnswer({ request, route, set, responseValue, svc }: Answered) {
      // The request context's start (stage 1); an unmatched route never gets one and is counted untimed.
      const start = svc?.startedAt;
      const status = statusOf(set, responseValue);
      const pattern = route || 'unmatched';
      observeRequest(request.method, pattern, status, start === undefined ? null : (performance.now() - start) / 1000);
      if (!accessLog) return;
      const line = {
        method: request.method,
        route: pattern,
        path: pathOf(request.url),
        status,
        requestId: set.headers['cf-ray'],
        accountId: svc?.caller?.accountId ?? null,
        model: (set.headers['x-svc-model-id'] as string | undefined) ?? null,
      };
      const stream = responseValue instanceof Response ? openStreamOf(responseValue.body) : undefined;
      const ms = start === undefined ? null : elapsedMs(start);
      if (!stream || start === undefined) return log.info('request', { ...line, ms, ...tokensOf(responseValue) });
      stream.onEnd(function logStreamEnd(end: StreamEnd) {
        const outcome = end.aborted ? 'client_gone' : end.error ? 'error' : 'complete';
        log.info('request', {
          ...line,
          ms: elapsedMs(start),
          headersMs: ms,
          promptTokens: end.promptTokens,
          completionTokens: end.completionTokens,
          stream: outcome,
        });
      });
    },
  );
}
