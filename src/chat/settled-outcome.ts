import type { ChatCompletion, ChatRequest, ChatUsage, SettledOutcome } from '@svc/plugin-sdk';
import type { SettledCost } from '../billing/meter';
import { ServiceError } from '../http/errors';
import type { RequestPluginContext } from '../plugin-host/context';
import { PluginStop } from '../plugin-host/errors';

/** What the chat handler knows of a request when it ends, for the plugins' `onSettled`. */
export interface OutcomeInput {
  ctx: RequestPluginContext;
  request: ChatRequest;
  model: string;
  answeredBy: string | null;
  completion: ChatCompletion | null;
  usage: ChatUsage | null;
  cost: SettledCost | null;
  status: number;
  error: unknown;
  /** performance.now() when the upstream call (or the plugin's answer) started, and its first byte; null when none. */
  upstreamAt: number | null;
  firstByteAt: number | null;
}

/** The status a thrown error gives the client. */
export const statusOf = (error: unknown) => (error instanceof ServiceError ? error.status : 500);

/** The outcome handed to `onSettled`. */
export function settledOutcome(o: OutcomeInput): SettledOutcome {
  const { ctx } = o;
  const now = performance.now();
  const stop = o.error instanceof PluginStop ? o.error : ctx.stopped;
  const message = o.error === null || o.error === undefined ? null : o.error instanceof Error ? o.error.message : String(o.error);
  return {
    requestId: ctx.request.requestId,
    accountId: ctx.request.accountId,
    keyId: ctx.request.keyId,
    route: ctx.request.route,
    model: o.model,
    stream: ctx.stream,
    request: o.request,
    answeredBy: o.answeredBy ?? 'upstream',
    completion: o.completion,
    complete: message === null && o.completion !== null,
    usage: o.usage,
    cost: o.cost ?? { usdMicros: 0, diemMicros: 0 },
    status: o.status,
    error: message,
    refusal: stop && stop.reason !== null ? { plugin: stop.plugin, reason: stop.reason } : null,
    notes: ctx.notes,
    timings: {
      totalMs: now - ctx.request.startedAt,
      upstreamMs: o.upstreamAt === null ? null : now - o.upstreamAt,
      firstByteMs: o.upstreamAt === null || o.firstByteAt === null ? null : o.firstByteAt - o.upstreamAt,
    },
  };
}
