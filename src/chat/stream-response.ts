import { ServiceError } from '../http/errors';
import type { MeteredCall } from '../pipeline/metered-call';
import type { ChatChunk, ChatUsage, ChunkTransformer } from '../stream/wire';
import type { RequestPluginContext } from '../plugin-host/context';
import type { RespondedAnswer } from '../pipeline/plugin-runner';
import type { StreamObserver } from './stream-observer';
import { answerMetered } from './plugin-answer';
import type { Routed } from '../../providers/router';
import type { ProviderChatResult } from '../../providers/types';
import { UpstreamStreamError } from '../stream/chunks';
import { byteReader, readerStream, type ByteReader } from '../stream/prefetched';
import { proxyStream, type ProxyStreamOptions, type StreamOutcome } from '../stream/proxy';
import type { StreamEncoder } from '../stream/encoder';
import { textTokens } from '../pipeline/tokens';
import { cost, metered } from './settle';

/** Everything a streaming chat response needs once the plugins have run. */
export interface StreamResponseInput {
  /** The routed upstream call; `result` is set when its first byte came before the headers. */
  routed: Promise<Routed<ProviderChatResult>>;
  result: Routed<ProviderChatResult> | null;
  call: MeteredCall & { readonly answered: { id: string } };
  ctx: RequestPluginContext;
  transforms: ChunkTransformer[];
  includeUsage: boolean;
  /** Tokens of the prompt as sent upstream (after the plugins), counted only when the upstream reports no usage. */
  promptTokensAsSent(): number;
  pingIntervalMs: number;
  /** Upstream idle timeout (proxyStream's default when absent). */
  idleTimeoutMs?: number;
  /** The wire format of the stream when it is not chat chunks (the Responses API's events). */
  encoder?: StreamEncoder;
  /** The plugin that answered instead of the upstream (its chunks replayed), or null. */
  responded: RespondedAnswer | null;
  /** Records the stream for the plugins' `onSettled`; null when no such plugin is active. */
  observer: StreamObserver | null;
}

/** The stream's own headers; the route's (CF-RAY, model, rate limits, balance) are merged in by Elysia from `set.headers`. */
const SSE_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' };

/** The SSE body of a routed chat that answered with a stream (it was asked for one). */
function streamBody(routed: Routed<ProviderChatResult>): ReadableStream<Uint8Array> {
  if (routed.result.kind !== 'stream') throw new UpstreamStreamError('The upstream answered a stream request with JSON');
  return routed.result.body;
}

/**
 * Upstream bytes of a call whose first byte had not arrived when the headers went out: a
 * failure before it becomes an in-band error (the status line is already sent).
 */
function deferredUpstream(routed: Promise<Routed<ProviderChatResult>>): ReadableStream<Uint8Array> {
  let inner: ByteReader | null = null;
  return readerStream({
    async read() {
      if (!inner) {
        try {
          inner = byteReader(streamBody(await routed));
        } catch (error) {
          throw new UpstreamStreamError(error instanceof ServiceError ? error.message : 'The upstream call failed');
        }
      }
      return inner.read();
    },
    async cancel() {
      const r = await routed.catch(() => null);
      if (r?.result.kind === 'stream') await byteReader(r.result.body).cancel();
    },
  });
}

/**
 * The usage of a stream whose upstream reported none (it broke, the client left, or the
 * upstream never sends usage): a tokenizer count of the prompt as sent upstream (svc's system
 * prompts included) and of the content the client actually got.
 */
function countedUsage(s: StreamResponseInput, outcome: StreamOutcome): ChatUsage {
  const prompt = s.promptTokensAsSent();
  const { text, chunksPastCap } = outcome.forwardedText();
  const completion = textTokens(text) + chunksPastCap;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

/**
 * The SSE response of a chat (DESIGN "Streams"): our headers only, the proxied body, and
 * settlement exactly once when it ends: with the upstream's usage, or with what was
 * forwarded when the stream broke or the client left; released when the upstream call
 * itself failed or delivered nothing (nothing was produced). A stream cut after it was
 * charged ends with its usage and cost, then the error and `[DONE]`.
 */
export function streamResponse(s: StreamResponseInput): Response {
  if (!s.result) s.routed.catch(() => {}); // its failure is reported in-band, not unhandled
  return new Response(proxyStream(new ChatStreamOptions(s)), { headers: SSE_HEADERS });
}

/**
 * What the proxy is given for a chat stream: a class, so its two callbacks are methods on
 * the prototype (the proxy calls them as `o.finish`, `o.abortUpstream`), not closures per stream.
 */
class ChatStreamOptions implements ProxyStreamOptions {
  readonly upstream: ReadableStream<Uint8Array>;
  readonly transforms: ChunkTransformer[];
  readonly leading: ChatChunk[];
  readonly pingIntervalMs: number;
  readonly idleTimeoutMs: number | undefined;
  readonly encoder: StreamEncoder | undefined;
  readonly readFinishReasons: boolean;

  constructor(private readonly s: StreamResponseInput) {
    this.upstream = s.result ? streamBody(s.result) : deferredUpstream(s.routed);
    // A plugin's answer is known whole (the observer reports it as it is): no recording, so a
    // cache hit with no stream transform stays zero-copy.
    this.transforms = s.observer && !s.responded ? [s.observer.recorder, ...s.transforms] : s.transforms;
    if (s.observer) s.observer.copies = s.transforms.length > 0 || s.encoder !== undefined;
    this.leading = s.ctx.leadingChunks;
    this.pingIntervalMs = s.pingIntervalMs;
    this.idleTimeoutMs = s.idleTimeoutMs;
    this.encoder = s.encoder;
    // Only a trace that is exported shows them: no search otherwise.
    this.readFinishReasons = s.call.request.trace?.sampled === true;
  }

  abortUpstream(): void {
    this.s.call.cancel();
  }

  async finish(outcome: StreamOutcome): Promise<ChatChunk | null> {
    const { s } = this;
    s.call.end();
    const result = s.result ?? (await s.routed.catch(() => null));
    if (!result) {
      await s.call.release();
      s.observer?.report(s, outcome, null, null);
      return null;
    }
    result.done();
    const usage: ChatUsage = outcome.usage ?? countedUsage(s, outcome);
    // An upstream that reported no usage and delivered nothing the client could read (a 200
    // of garbage, an empty stream) produced nothing: the reservation goes back, uncharged.
    if (!s.responded && !outcome.usage && !outcome.aborted && usage.completion_tokens === 0 && s.ctx.leadingChunks.length === 0) {
      await s.call.release();
      s.observer?.report(s, outcome, usage, null);
      return null;
    }
    let settled = { usdMicros: 0, diemMicros: 0 };
    try {
      const { startedAt } = s.call.request;
      settled = await s.call.settle(
        s.responded
          ? answerMetered(s.responded.answer, s.ctx.extraCharges, startedAt, s.ctx.notes)
          : metered(usage, s.ctx.extraCharges, startedAt, s.ctx.notes),
      );
    } catch (error) {
      s.ctx.services.log.error('chat: settlement failed', { requestId: s.call.request.requestId, error: String(error) });
    }
    s.observer?.report(s, outcome, usage, settled);
    const charged = cost(settled);
    // A client that asked for usage gets it; so does one whose stream was cut (an upstream
    // failure, the idle timeout, a shutdown) and charged: it is shown what it paid, before the error.
    if (outcome.aborted || !(s.includeUsage || (outcome.error && (charged.usd > 0 || charged.diem > 0)))) return null;
    const base: ChatChunk = outcome.usageChunk ?? {
      id: `chatcmpl-${s.call.request.requestId}`,
      object: 'chat.completion.chunk',
      created: Math.floor(Date.now() / 1000),
      model: s.ctx.model.id,
      choices: [],
    };
    return { ...base, usage, cost: charged };
  }
}
