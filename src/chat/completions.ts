import type { MeterTicket } from '../billing/meter';
import { formatMicros, toMicros } from '../billing/money';
import type { AppDeps } from '../deps';
import { badRequest, notFound, ServiceError } from '../http/errors';
import type { RequestContext } from '../http/request-context';
import { splitModelSuffix, type ModelEntry } from '../models/catalog';
import { deprecationHeaders } from '../models/present';
import type { ChatChunk, ChatContext, ChatMessage, RequestPlugin, UpstreamChatRequest, ChunkTransformer } from '../pipeline/types';
import { asServiceError } from '../../providers/errors';
import type { RoutedResult } from '../../providers/router';
import { estimateTokens } from '../../providers/simulator';
import { checkContentParts } from './multimodal';
import type { ParameterSet } from './parameters';
import type { PluginRunner } from './runner';
import { cost, metered } from './settle';
import { streamResponse } from './stream-response';

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

/** Resolves once `p` settles or `ms` pass; null when the time ran out first. */
function within<T>(p: Promise<T>, ms: number): Promise<T | null> {
  return new Promise<T | null>((resolve, reject) => {
    const timer = setTimeout(() => resolve(null), ms);
    p.then(
      (v) => (clearTimeout(timer), resolve(v)),
      (e) => (clearTimeout(timer), reject(e)),
    );
  });
}

/**
 * POST /chat/completions (issue 4): model and suffix resolution, content checks, metering
 * reservation, the plugins, the router, then a JSON body or a proxied SSE stream. Nothing
 * is charged when the upstream fails before its first byte; otherwise the ticket is settled
 * exactly once with what was produced.
 */
export function createChatHandler(
  deps: AppDeps,
  runner: PluginRunner,
  parameters: ParameterSet,
  opts: { pingIntervalMs: number; idleTimeoutMs?: number },
) {
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
    const ctx: ChatContext = {
      request: svc,
      deps,
      model,
      params,
      signal: abort.signal,
      stream,
      extraCharges: [],
      echo: {},
      leadingChunks: [],
    };
    const upstreamReq = toUpstream(body, model, stream);
    const estimatedPromptTokens = estimateTokens(body.messages);
    const maxTokens = typeof body.max_tokens === 'number' && body.max_tokens > 0 ? body.max_tokens : undefined;
    const maxCompletionTokens =
      body.max_completion_tokens ?? maxTokens ?? model.config.maxCompletionTokens ?? DEFAULT_MAX_COMPLETION_TOKENS;

    // Opened before the plugins so rate limits and balance are enforced before any paid work (search, scraping).
    const ticket = await deps.meter.open({ ctx: svc, model, estimatedPromptTokens, maxCompletionTokens, extras: [] });
    const cleanup = () => request.signal?.removeEventListener('abort', onClientGone);
    async function failed(error: unknown): Promise<never> {
      cleanup();
      await ticket.release();
      if (error instanceof ServiceError) throw error;
      if (abort.signal.aborted) throw new ServiceError(499, { error: 'Client closed the request' });
      deps.log.error('chat: upstream call failed', { requestId: svc.requestId, error: String(error) });
      throw asServiceError(error);
    }

    let active: RequestPlugin[] = [];
    let transforms: ChunkTransformer[] = [];
    try {
      active = runner.active(ctx);
      await runner.transformRequest(active, upstreamReq, ctx);
      if (stream) transforms = runner.streamTransforms(active, ctx);
    } catch (error) {
      return failed(error);
    }
    let replica = '';
    const routed = deps.providers.router.chat(model, upstreamReq, {
      signal: abort.signal,
      cacheKey: body.prompt_cache_key,
      onAttempt: (id) => (replica = id),
    });
    let result: RoutedResult | null;
    try {
      // A stream waits for the upstream's first byte (so failures stay JSON errors and retry)
      // for one ping interval at most; after that the headers go out and pings keep it alive.
      result = stream ? await within(routed, opts.pingIntervalMs) : await routed;
    } catch (error) {
      return failed(error);
    }

    // Into Elysia's response headers (which already hold CF-RAY, the version and the rate
    // limits): a stream's Response carries only its own three, and Elysia merges the rest
    // once, instead of svc copying them all into a Response that Elysia then copies again.
    const headers = set.headers;
    headers['x-svc-model-id'] = model.id;
    headers['x-svc-model-name'] = model.name;
    headers['x-svc-model-router'] = result?.replica ?? replica;
    Object.assign(headers, deprecationHeaders(model), ticket.headers);

    if (result?.kind === 'json') return jsonResponse(result, active, ticket, ctx, headers);
    return streamResponse({
      routed,
      result,
      ticket,
      ctx,
      transforms,
      includeUsage: body.stream_options?.include_usage === true,
      estimatedPromptTokens,
      pingIntervalMs: opts.pingIntervalMs,
      idleTimeoutMs: opts.idleTimeoutMs,
      abort: onClientGone,
      cleanup,
      log: deps.log,
    });
  };

  async function jsonResponse(
    result: RoutedResult & { kind: 'json' },
    active: RequestPlugin[],
    ticket: MeterTicket,
    ctx: ChatContext,
    headers: ChatCall['set']['headers'],
  ) {
    result.done();
    // Settled before the plugins touch the body: the upstream's work is done and charged even if one fails.
    const usage = result.body.usage ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
    const settled = await ticket.settle(metered(usage, ctx));
    const body = await runner.transformResponse(active, result.body, ctx);
    // A JSON answer knows its cost before the headers go out: a wallet sees what is left after it.
    const before = headers['x-balance-remaining'];
    if (before !== undefined) headers['x-balance-remaining'] = formatMicros(toMicros(String(before)) - settled.usdMicros);
    return { ...body, model: ctx.model.id, cost: cost(settled), svc_parameters: parameters.echo(ctx.params, ctx.echo) };
  }
}
