import type { MeteredUsage, MeterTicket } from '../billing/meter';
import { microsToNumber } from '../billing/money';
import type { AppDeps } from '../deps';
import { badRequest, notFound, ServiceError } from '../http/errors';
import type { RequestContext } from '../http/request-context';
import { splitModelSuffix, type ModelEntry } from '../models/catalog';
import { deprecationHeaders } from '../models/present';
import type { ChatChunk, ChatContext, ChatMessage, ChatUsage, RequestPlugin, UpstreamChatRequest } from '../pipeline/types';
import { asServiceError } from '../../providers/errors';
import type { RoutedResult } from '../../providers/router';
import { estimateTokens } from '../../providers/simulator';
import { proxyStream, type StreamOutcome } from '../stream/proxy';
import { checkContentParts } from './multimodal';
import type { ParameterSet } from './parameters';
import type { PluginRunner } from './runner';

/** Completion tokens reserved when the request sets no limit and the model declares none. */
export const DEFAULT_MAX_COMPLETION_TOKENS = 4096;

/** The validated request body (the schema in ./schema.ts). */
export interface ChatRequestBody {
  model: string;
  messages: ChatMessage[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  max_tokens?: number | null;
  max_completion_tokens?: number | null;
  prompt_cache_key?: string;
  svc_parameters?: Record<string, unknown>;
  [field: string]: unknown;
}

/** What the handler needs from the Elysia context. */
export interface ChatCall {
  body: ChatRequestBody;
  svc: RequestContext;
  request: Request;
  set: { headers: Record<string, string | number> };
  server: { timeout?(request: Request, seconds: number): void } | null;
}

// Fields the reference accepts but discards; the rest of the body goes upstream as sent.
const DISCARDED = ['svc_parameters', 'user', 'store'] as const;

function resolveModel(deps: AppDeps, name: string): { model: ModelEntry; suffix: string | null } {
  const { base, suffix } = splitModelSuffix(name);
  const model = deps.models.resolve(base);
  if (!model) throw notFound(`Model "${base}" not found. GET /models lists the available models.`);
  if (model.type !== 'text')
    throw badRequest(`Model "${model.id}" is a ${model.type} model, not a chat model`, [{ path: ['model'], message: 'Not a text model' }]);
  return { model, suffix };
}

function toUpstream(body: ChatRequestBody, model: ModelEntry, stream: boolean): UpstreamChatRequest {
  const req = { ...body, model: model.id } as UpstreamChatRequest;
  for (const key of DISCARDED) delete req[key];
  // max_tokens <= 0 is ignored (reference); null fields are dropped rather than sent.
  if (req.max_tokens === null || (typeof req.max_tokens === 'number' && req.max_tokens <= 0)) delete req.max_tokens;
  if (req.max_completion_tokens === null) delete req.max_completion_tokens;
  if (stream) req.stream_options = { ...body.stream_options, include_usage: true };
  else {
    delete req.stream;
    delete req.stream_options;
  }
  return req;
}

const cost = (settled: { usdMicros: number; diemMicros: number }) => ({ usd: microsToNumber(settled.usdMicros), diem: microsToNumber(settled.diemMicros) });

function metered(usage: ChatUsage, ctx: ChatContext, startedAt: number): MeteredUsage {
  return {
    promptTokens: usage.prompt_tokens,
    completionTokens: usage.completion_tokens,
    cachedPromptTokens: usage.prompt_tokens_details?.cached_tokens ?? 0,
    extras: ctx.extraCharges,
    executionMs: Math.round(performance.now() - startedAt),
  };
}

/**
 * POST /chat/completions (issue 4): model and suffix resolution, content checks, metering
 * reservation, the plugins, the router, then a JSON body or a proxied SSE stream. Nothing
 * is charged when the upstream fails before its first byte; otherwise the ticket is settled
 * exactly once with what was produced.
 */
export function createChatHandler(deps: AppDeps, runner: PluginRunner, parameters: ParameterSet, opts: { pingIntervalMs: number }) {
  return async function chatCompletion({ body, svc, request, set, server }: ChatCall): Promise<unknown> {
    const { model, suffix } = resolveModel(deps, body.model);
    const params = parameters.resolve(body.svc_parameters, suffix);
    checkContentParts(body.messages, model);
    const stream = body.stream === true;
    // Bun's idleTimeout (60 s in src/index.ts) must not cut a stream silent between pings or
    // a JSON answer slower than it; the provider's timeoutMs bounds the wait instead.
    server?.timeout?.(request, 0);
    const abort = new AbortController();
    const onClientGone = () => abort.abort();
    request.signal?.addEventListener('abort', onClientGone, { once: true });
    const ctx: ChatContext = { request: svc, deps, model, params, signal: abort.signal, stream, extraCharges: [], echo: {}, leadingChunks: [] };
    const upstreamReq = toUpstream(body, model, stream);
    const estimatedPromptTokens = estimateTokens(body.messages);
    const maxTokens = typeof body.max_tokens === 'number' && body.max_tokens > 0 ? body.max_tokens : undefined;
    const maxCompletionTokens = body.max_completion_tokens ?? maxTokens ?? model.config.maxCompletionTokens ?? DEFAULT_MAX_COMPLETION_TOKENS;

    // Opened before the plugins so rate limits and balance are enforced before any paid work (search, scraping).
    const ticket = await deps.meter.open({ ctx: svc, model, estimatedPromptTokens, maxCompletionTokens, extras: [] });
    let result: RoutedResult;
    let active: RequestPlugin[] = [];
    try {
      active = runner.active(ctx);
      await runner.transformRequest(active, upstreamReq, ctx);
      result = await deps.providers.router.chat(model, upstreamReq, { signal: abort.signal, cacheKey: body.prompt_cache_key });
    } catch (error) {
      request.signal?.removeEventListener('abort', onClientGone);
      await ticket.release();
      if (error instanceof ServiceError) throw error;
      if (abort.signal.aborted) throw new ServiceError(499, { error: 'Client closed the request' });
      deps.log.error('chat: upstream call failed', { requestId: svc.requestId, error: String(error) });
      throw asServiceError(error);
    }

    const headers: Record<string, string> = {};
    for (const key in set.headers) headers[key] = String(set.headers[key]);
    headers['x-svc-model-id'] = model.id;
    headers['x-svc-model-name'] = model.name;
    headers['x-svc-model-router'] = result.replica;
    Object.assign(headers, deprecationHeaders(model), ticket.headers);

    if (result.kind === 'json') return jsonResponse(result, active, ticket, ctx, headers, set);
    const includeUsage = body.stream_options?.include_usage === true;
    let transforms: TransformStream<ChatChunk, ChatChunk>[];
    try {
      transforms = runner.streamTransforms(active, ctx);
    } catch (error) {
      // Nothing reached the client: drop the upstream stream and charge nothing.
      onClientGone();
      result.done();
      await ticket.release();
      throw error;
    }
    const sse = proxyStream({
      upstream: result.body,
      transforms,
      leading: ctx.leadingChunks,
      pingIntervalMs: opts.pingIntervalMs,
      abortUpstream: onClientGone,
      finish: (outcome) => settleStream(outcome, { result, ticket, ctx, estimatedPromptTokens, includeUsage, request, onClientGone }),
    });
    headers['content-type'] = 'text/event-stream; charset=utf-8';
    headers['cache-control'] = 'no-cache';
    headers['x-accel-buffering'] = 'no';
    return new Response(sse, { headers });
  };

  async function jsonResponse(
    result: RoutedResult & { kind: 'json' },
    active: RequestPlugin[],
    ticket: MeterTicket,
    ctx: ChatContext,
    headers: Record<string, string>,
    set: ChatCall['set'],
  ) {
    result.done();
    // Settled before the plugins touch the body: the upstream's work is done and charged even if one fails.
    const usage = result.body.usage ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
    const settled = await ticket.settle(metered(usage, ctx, ctx.request.startedAt));
    const body = await runner.transformResponse(active, result.body, ctx);
    Object.assign(set.headers, headers);
    return { ...body, model: ctx.model.id, cost: cost(settled), svc_parameters: parameters.echo(ctx.params, ctx.echo) };
  }

  async function settleStream(
    outcome: StreamOutcome,
    s: { result: RoutedResult; ticket: MeterTicket; ctx: ChatContext; estimatedPromptTokens: number; includeUsage: boolean; request: Request; onClientGone: () => void },
  ): Promise<ChatChunk | null> {
    s.result.done();
    s.request.signal?.removeEventListener('abort', s.onClientGone);
    // Without the upstream's report (broken stream, client gone) charge what was forwarded.
    const usage: ChatUsage = outcome.usage ?? {
      prompt_tokens: s.estimatedPromptTokens,
      completion_tokens: outcome.forwarded,
      total_tokens: s.estimatedPromptTokens + outcome.forwarded,
    };
    let settledCost = { usd: 0, diem: 0 };
    try {
      settledCost = cost(await s.ticket.settle(metered(usage, s.ctx, s.ctx.request.startedAt)));
    } catch (error) {
      deps.log.error('chat: settlement failed', { requestId: s.ctx.request.requestId, error: String(error) });
    }
    if (outcome.aborted || outcome.error || !s.includeUsage) return null;
    const base: ChatChunk = outcome.usageChunk ?? {
      id: `chatcmpl-${s.ctx.request.requestId}`,
      object: 'chat.completion.chunk',
      created: Math.floor(Date.now() / 1000),
      model: s.ctx.model.id,
      choices: [],
    };
    return { ...base, usage, cost: settledCost };
  }
}
