import type { ChatCompletion, ChatUsage, UpstreamChatRequest } from '../stream/wire';
import type { ModelCall } from '../pipeline/model-call';
import type { ActivePlugin, PluginRunner } from '../pipeline/plugin-runner';
import type { RequestPluginContext } from '../plugin-host/context';
import { PluginStop } from '../plugin-host/errors';

const NO_USAGE: ChatUsage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };

/** The usage a completion reports (zeros when it reports none). */
export const usageOf = (completion: ChatCompletion): ChatUsage => completion.usage ?? NO_USAGE;

/** Two calls' usage as one (both are charged in one settlement). */
function addUsage(a: ChatUsage, b: ChatUsage): ChatUsage {
  const cached = (a.prompt_tokens_details?.cached_tokens ?? 0) + (b.prompt_tokens_details?.cached_tokens ?? 0);
  const written = (a.prompt_tokens_details?.cache_creation_input_tokens ?? 0) + (b.prompt_tokens_details?.cache_creation_input_tokens ?? 0);
  const sum: ChatUsage = {
    prompt_tokens: a.prompt_tokens + b.prompt_tokens,
    completion_tokens: a.completion_tokens + b.completion_tokens,
    total_tokens: a.total_tokens + b.total_tokens,
  };
  if (cached || written) sum.prompt_tokens_details = { cached_tokens: cached, cache_creation_input_tokens: written };
  return sum;
}

/** What the plugins made of a JSON answer: the answer to send, or the error to throw once settled. */
export interface CheckedAnswer {
  /** The upstream's last answer, parsed for this request alone (the transforms may change it in place). */
  body: ChatCompletion;
  /** The same as `keep` returned it before the transforms ran (a copy for onSettled, when a plugin observes). */
  kept: ChatCompletion;
  /** The usage to settle: both calls' when the upstream was asked twice. */
  usage: ChatUsage;
  answer: ChatCompletion | null;
  failure: unknown;
  /** Upstream calls made for the answer: 1, or 2 after a refusal asked for a retry. */
  upstreamCalls: number;
}

/**
 * Runs the plugins' `transformResponse` on an upstream's JSON answer. When one refuses with
 * `retry` (output_schema, when the operator allows it), the same request goes upstream once
 * more and the transforms run on the new answer; the caller settles both calls' usage. A
 * retry that cannot be made (the client left, the upstream failed) leaves the first refusal.
 * With no transform active (most requests) the answer is checked at once: no promise, no
 * async step.
 */
export function checkedAnswer(
  runner: PluginRunner,
  active: readonly ActivePlugin[],
  ctx: RequestPluginContext,
  /** The call to ask again; null when a plugin answered (nothing to retry). */
  call: ModelCall | null,
  request: UpstreamChatRequest,
  first: ChatCompletion,
  keep: (c: ChatCompletion) => ChatCompletion,
): CheckedAnswer | Promise<CheckedAnswer> {
  const out: CheckedAnswer = { body: first, kept: keep(first), usage: usageOf(first), answer: null, failure: null, upstreamCalls: 1 };
  let answer: ChatCompletion | Promise<ChatCompletion>;
  try {
    answer = runner.transformResponse(active, first, ctx, call === null);
  } catch (error) {
    return refused(runner, active, ctx, call, request, keep, out, error);
  }
  if (answer instanceof Promise) return transformedLater(runner, active, ctx, call, request, keep, out, answer);
  out.answer = answer;
  return out;
}

/** `checkedAnswer` once the transforms answered with a promise. */
async function transformedLater(
  runner: PluginRunner,
  active: readonly ActivePlugin[],
  ctx: RequestPluginContext,
  call: ModelCall | null,
  request: UpstreamChatRequest,
  keep: (c: ChatCompletion) => ChatCompletion,
  out: CheckedAnswer,
  answer: Promise<ChatCompletion>,
): Promise<CheckedAnswer> {
  try {
    out.answer = await answer;
    return out;
  } catch (error) {
    return refused(runner, active, ctx, call, request, keep, out, error);
  }
}

/** The transforms of the first answer threw `error`: the refusal, or the retry it asked for and its answer checked. */
async function refused(
  runner: PluginRunner,
  active: readonly ActivePlugin[],
  ctx: RequestPluginContext,
  call: ModelCall | null,
  request: UpstreamChatRequest,
  keep: (c: ChatCompletion) => ChatCompletion,
  out: CheckedAnswer,
  error: unknown,
): Promise<CheckedAnswer> {
  out.failure = error;
  if (!call || !(error instanceof PluginStop) || !error.retry || call.signal.aborted) return out;
  let second: ChatCompletion;
  try {
    const routed = await call.route('chat', (provider, options) => provider.chat(request, options), call.cacheKey);
    routed.done();
    if (routed.result.kind !== 'json') return out;
    second = routed.result.body;
  } catch (error) {
    ctx.services.log.warn('chat: the retry a plugin asked for failed', { requestId: ctx.request.requestId, error: String(error) });
    return out;
  }
  out.upstreamCalls = 2;
  out.usage = addUsage(out.usage, usageOf(second));
  out.body = second;
  out.kept = keep(second);
  out.failure = null;
  try {
    out.answer = await runner.transformResponse(active, second, ctx, false);
  } catch (error) {
    out.failure = error;
  }
  return out;
}
