import type { ChunkTransformer, PluginContext, PluginServices } from '@svc/plugin-sdk';
import { badRequest } from '../http/errors';
import { formatMicros } from '../billing/money';
import type { FallbackName, ModelCall } from '../pipeline/model-call';
import type { ActivePlugin, PluginRunner, RespondedAnswer } from '../pipeline/plugin-runner';
import { chatPromptTokens } from '../pipeline/tokens';
import type { ChatCompletion, ChatMessage, UpstreamChatRequest } from '../stream/wire';
import type { ModelEntry } from '../models/catalog';
import type { Routed } from '../../providers/router';
import type { ProviderChatResult } from '../../providers/types';
import { RequestPluginContext } from '../plugin-host/context';
import { PluginStop } from '../plugin-host/errors';
import { DEFAULT_MAX_COMPLETION_TOKENS } from './max-tokens';
import { rememberClientIndexes } from './message-index';
import { checkContentParts } from './multimodal';
import { checkResponseFormat } from './response-format';
import type { ParameterSet } from './parameters';
import { answerAsRouted, answerMetered } from './plugin-answer';
import { cost, metered } from './settle';
import { settledOutcome, statusOf } from './settled-outcome';
import { streamObserver } from './stream-observer';
import { streamResponse } from './stream-response';
import { checkedAnswer } from './checked-answer';
import type { StreamEncoder } from '../stream/encoder';

export { DEFAULT_MAX_COMPLETION_TOKENS } from './max-tokens';
/** The largest `n` of a model whose catalog entry sets no `maxChoices`. */
export const DEFAULT_MAX_CHOICES = 8;

/** The validated request body (the schema in ./schema.ts). */
export interface ChatRequestBody {
  model: string;
  messages: ChatMessage[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  max_tokens?: number | null;
  max_completion_tokens?: number | null;
  n?: number;
  prompt_cache_key?: string;
  fallbacks?: FallbackName[];
  svc_parameters?: Record<string, unknown>;
  [field: string]: unknown;
}

/** How another API on the chat pipeline (the Responses API) writes a chat's stream; chat chunks when absent. */
export interface ChatOutput {
  /** The route plugins see in `ctx.request.route` (default '/chat/completions'). */
  route?: string;
  /** The stream's wire format, made per request (it may read the plugins' context: citations). */
  streamEncoder?(ctx: PluginContext): StreamEncoder;
}

// Fields the reference accepts but discards; the rest of the body goes upstream as sent.
const DISCARDED = ['svc_parameters', 'user', 'store', 'fallbacks'] as const;

function toUpstream(body: ChatRequestBody, model: ModelEntry, stream: boolean): UpstreamChatRequest {
  const req = { ...body, model: model.id } as UpstreamChatRequest;
  for (const key of DISCARDED) delete req[key];
  // max_tokens 0 is ignored (reference; negative values are refused by the schema); null fields are dropped rather than sent.
  if (req.max_tokens === null || (typeof req.max_tokens === 'number' && req.max_tokens <= 0)) delete req.max_tokens;
  if (req.max_completion_tokens === null) delete req.max_completion_tokens;
  if (stream) req.stream_options = { ...body.stream_options, include_usage: true };
  else {
    delete req.stream;
    delete req.stream_options;
  }
  return req;
}

/** The choices a request asks for (`n`), within the model's bound (400 naming `n` above it). */
function choicesOf(body: ChatRequestBody, model: ModelEntry): number {
  const n = body.n ?? 1;
  const max = model.config.maxChoices ?? DEFAULT_MAX_CHOICES;
  if (n > max)
    throw badRequest(`n: ${model.id} generates at most ${max} choices per request`, [{ path: ['n'], message: `Expected at most ${max}` }]);
  return n;
}

/**
 * Completion tokens to reserve: the request's limit, else the model's, else the default, for
 * each of the `choices` (the upstream's limits apply per choice and it charges them all).
 */
export function completionBudget(body: ChatRequestBody, model: ModelEntry, choices: number): number {
  const maxTokens = typeof body.max_tokens === 'number' && body.max_tokens > 0 ? body.max_tokens : undefined;
  return choices * (body.max_completion_tokens ?? maxTokens ?? model.config.maxCompletionTokens ?? DEFAULT_MAX_COMPLETION_TOKENS);
}

// Shared for a request with no plugin active (most): never written to, only replaced.
const NO_PLUGINS: readonly ActivePlugin[] = [];
const NO_TRANSFORMS: ChunkTransformer[] = [];
const same = <T>(x: T): T => x;
const shallow = (c: ChatCompletion): ChatCompletion => ({ ...c });

/**
 * How onSettled gets the answer before the transforms. A plugin's is handed as it gave it
 * (PluginAnswer: never written to). The upstream's is deep-cloned when a transform may change
 * it in place; otherwise a shallow copy keeps it from the fields completed after (model, cost,
 * the echo): structuredClone was a tenth of a cache miss's CPU.
 */
function keepFor(observing: boolean, pluginAnswered: boolean, transformsChange: boolean): (c: ChatCompletion) => ChatCompletion {
  if (!observing || pluginAnswered) return same;
  return transformsChange ? structuredClone : shallow;
}

/**
 * Resolves once `p` settles or `ms` pass (null when the time ran out first); the caller
 * clears `timer` once it has the answer. The resolvers record is the waiter and its own
 * functions are the callbacks: no executor, no closure per stream.
 */
function within<T>(p: Promise<T>, ms: number): PromiseWithResolvers<T | null> & { timer: ReturnType<typeof setTimeout> } {
  const w = Promise.withResolvers<T | null>() as PromiseWithResolvers<T | null> & { timer: ReturnType<typeof setTimeout> };
  w.timer = setTimeout(w.resolve, ms, null);
  p.then(w.resolve, w.reject);
  return w;
}

/**
 * The error a client sees when a plugin stopped an answer already charged: a refusal says
 * the answer was withheld and what it cost.
 */
function withheld(error: unknown, usdMicros: number, upstreamCalls: number): unknown {
  if (!(error instanceof PluginStop) || error.reason === null) return error;
  const what =
    upstreamCalls > 1
      ? `the upstream was asked ${upstreamCalls} times and its answers were withheld; all were charged`
      : "the upstream's answer was withheld; it was charged";
  const message = `${error.body.error} (${what}: $${formatMicros(usdMicros)})`;
  return new PluginStop(error.status, { ...error.body, error: message }, error.plugin, error.reason);
}

/**
 * POST /chat/completions on the metered call: the svc_parameters and content checks, the
 * reservation, the plugins, the routed `chat` capability, then a JSON body or a proxied SSE
 * stream. Nothing is charged when the upstream fails before its first byte; otherwise the
 * call is settled exactly once with what was produced.
 */
export function createChatHandler(
  services: PluginServices,
  runner: PluginRunner,
  parameters: ParameterSet,
  opts: { pingIntervalMs: number; idleTimeoutMs?: number },
) {
  return async function chatCompletion(body: ChatRequestBody, call: ModelCall, output: ChatOutput = {}): Promise<unknown> {
    const { model } = call;
    const params = parameters.resolve(body.svc_parameters, call.suffix);
    checkContentParts(body.messages, model);
    checkResponseFormat(body.response_format, model);
    const choices = choicesOf(body, model);
    call.useFallbacks(body.fallbacks, 'fallbacks');
    const stream = body.stream === true;
    const ctx = new RequestPluginContext(call, services, model, params, stream, output.route ?? '/chat/completions');
    const upstreamReq = toUpstream(body, model, stream);
    rememberClientIndexes(body.messages);
    const estimatedPromptTokens = chatPromptTokens(body.messages);

    // Reserved before the plugins so rate limits and balance are enforced before any paid work (search, scraping).
    // Awaited only when the meter had to wait: an `await` of nothing still suspends.
    const reserving = call.reserve({ promptTokens: estimatedPromptTokens, completionTokens: completionBudget(body, model, choices) });
    if (reserving) await reserving;
    let active: readonly ActivePlugin[] = NO_PLUGINS;
    let transforms: ChunkTransformer[] = NO_TRANSFORMS;
    let responded: RespondedAnswer | null = null;
    let routed: Promise<Routed<ProviderChatResult>>;
    let result: Routed<ProviderChatResult> | null;
    let observing = false;
    let upstreamAt: number | null = null;
    try {
      call.request.pluginsStart = performance.now();
      active = runner.active(ctx);
      observing = runner.observing(active);
      const transformed = runner.transformRequest(active, upstreamReq, ctx);
      if (transformed) await transformed;
      // A plugin may answer in the upstream's place (a cache), seeing the request as it would go upstream.
      const responding = runner.respond(active, upstreamReq, ctx);
      if (responding) responded = await responding;
      if (stream) transforms = runner.streamTransforms(active, ctx);
      call.request.pluginsEnd = performance.now();
      if (observing) upstreamAt = performance.now();
      if (responded) {
        call.answeredLocally();
        result = answerAsRouted(responded, stream, model.id);
        routed = Promise.resolve(result);
      } else {
        routed = call.route('chat', (provider, options) => provider.chat(upstreamReq, options), body.prompt_cache_key);
        // A stream waits for the upstream's first content (so failures, in-band ones before any
        // content included, stay JSON errors and retry) for one ping interval at most; after
        // that the headers go out and pings keep it alive.
        if (stream) {
          const first = within(routed, opts.pingIntervalMs);
          try {
            result = await first.promise;
          } finally {
            clearTimeout(first.timer);
          }
        } else result = await routed;
      }
    } catch (error) {
      if (observing) {
        const failed = { ctx, request: upstreamReq, model: model.id, answeredBy: null, completion: null, usage: null, cost: null };
        runner.settled(active, ctx, settledOutcome({ ...failed, status: statusOf(error), error, upstreamAt, firstByteAt: null }));
      }
      return call.fail(error);
    }

    if (result?.result.kind === 'json') {
      result.done();
      // The transforms run before the settlement, so a refusal that asks for one more upstream
      // call (output_schema) is charged with it in one settlement; a failing plugin still
      // leaves the upstream's work charged: the settlement comes before any error is thrown.
      const firstByteAt = observing ? performance.now() : null;
      const retryWith = responded ? null : call;
      const checking = checkedAnswer(
        runner,
        active,
        ctx,
        retryWith,
        upstreamReq,
        result.result.body,
        keepFor(observing, responded !== null, runner.changesResponse(active)),
      );
      // Awaited only when a transform made it a promise: an `await` of a value still suspends.
      const checked = checking instanceof Promise ? await checking : checking;
      const { usage, upstreamCalls } = checked;
      const settled = await call.settle(
        responded
          ? answerMetered(responded.answer, ctx.extraCharges, call.request.startedAt, ctx.notes)
          : metered(usage, ctx.extraCharges, call.request.startedAt, ctx.notes),
      );
      if (upstreamCalls > 1) ctx.setHeader('x-svc-upstream-calls', String(upstreamCalls));
      // What onSettled is told, kept only when a plugin will be (no closure per request).
      const seen = observing
        ? {
            ctx,
            request: upstreamReq,
            model: call.answered.id,
            answeredBy: responded?.plugin ?? null,
            completion: checked.kept,
            usage,
            cost: settled,
          }
        : null;
      if (checked.failure !== null || checked.answer === null) {
        const shown = withheld(checked.failure, settled.usdMicros, upstreamCalls);
        if (seen) runner.settled(active, ctx, settledOutcome({ ...seen, status: statusOf(shown), error: shown, upstreamAt, firstByteAt }));
        throw shown;
      }
      const answer = checked.answer;
      call.chargeBeforeHeaders(settled);
      // The upstream's answer was parsed for this request alone, so it is completed in place
      // (the same keys in the same order as a copy: `model` where it was, the rest appended);
      // what a plugin returned may be shared, so it is copied.
      const out = answer === checked.body ? answer : { ...answer };
      out.model = call.answered.id;
      out.cost = cost(settled);
      out.svc_parameters = parameters.echo(ctx.params, ctx.echo);
      if (seen) runner.settled(active, ctx, settledOutcome({ ...seen, status: 200, error: null, upstreamAt, firstByteAt }));
      return out;
    }
    // onSettled needs the upstream's chunks assembled: recorded ahead of the transforms (so decoded, not zero-copy).
    return streamResponse({
      routed,
      result,
      call,
      ctx,
      transforms,
      includeUsage: body.stream_options?.include_usage === true,
      promptTokensAsSent: () => chatPromptTokens(upstreamReq.messages),
      pingIntervalMs: opts.pingIntervalMs,
      idleTimeoutMs: opts.idleTimeoutMs,
      encoder: output.streamEncoder?.(ctx),
      responded,
      observer: observing ? streamObserver(runner, active, upstreamReq, upstreamAt ?? performance.now()) : null,
    });
  };
}
