import { chatPromptTokens, contentText as textOf } from '../../src/pipeline/tokens';
import { DONE_BYTES, encodeEvent } from '../../src/stream/encoder';
import type { Capabilities } from '../../src/models/schema';
import type { UpstreamChatRequest } from '../../src/stream/wire';
import { simulateChat } from '../simulator-chat/answer';
import { chunksOf, completionOf } from '../simulator-chat/chunks';
import { createPromptCache } from '../simulator-chat/prompt-cache';
import type { ProviderCalls } from '../types';
import { sleep } from './sleep';

/** Simulator settings, from the provider's `options` in config. */
export interface SimulatorOptions {
  /** Time to the first token, in ms (default 20). */
  latencyMs?: number;
  /** Streaming speed; 0 sends every token at once (default 200). */
  tokensPerSecond?: number;
  /** Whether reasoning models think in `<think>` tags (default true). */
  thinking?: boolean;
  /** How long a media job (video, async audio) takes, in ms (default 5000; providers/simulator/media-jobs.ts). */
  jobMs?: number;
}

const num = (v: unknown, fallback: number) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : fallback);

/** Whether the request asks a reasoning model not to think, in any of the usual dialects. */
function thinkingDisabled(req: UpstreamChatRequest): boolean {
  const kwargs = req.chat_template_kwargs as { enable_thinking?: unknown; thinking?: unknown } | undefined;
  if (kwargs?.enable_thinking === false || kwargs?.thinking === false) return true;
  if (req.reasoning_effort === 'none' || (req.reasoning as { effort?: unknown } | undefined)?.effort === 'none') return true;
  if ((req.thinking as { type?: unknown } | undefined)?.type === 'disabled') return true;
  return req.messages.some((m) => (m.role === 'system' || m.role === 'user') && textOf(m.content).includes('/no_think'));
}

/**
 * The simulator's chat: answers chat-completions in JSON and SSE with configurable latency
 * and speed, tokenizer-counted usage, and `<think>` blocks for reasoning models unless
 * thinking is disabled. The answer itself (tool calls, JSON, n, stop, logprobs, as the
 * model's catalog flags claim) is built by providers/simulator-chat.
 */
export function simulatedChat(o: {
  options: SimulatorOptions;
  isReasoning: (model: string) => boolean;
  /** The catalog flags of an upstream model: tools, JSON schemas and logprobs follow them. */
  capabilitiesOf?: (model: string) => Partial<Capabilities>;
}): ProviderCalls['chat'] {
  const latencyMs = num(o.options.latencyMs, 20);
  const tps = num(o.options.tokensPerSecond, 200);
  const thinking = o.options.thinking !== false;
  const promptCache = createPromptCache();

  return async function chat(req, opts) {
    const think = thinking && o.isReasoning(opts.upstreamModel) && !thinkingDisabled(req);
    const capabilities = o.capabilitiesOf?.(opts.upstreamModel) ?? {};
    const cache = capabilities.supportsPromptCaching ? promptCache.lookup(opts.upstreamModel, req) : { read: 0, written: 0 };
    const answer = simulateChat(req, {
      think,
      capabilities,
      promptTokens: chatPromptTokens(req.messages),
      cachedPromptTokens: cache.read,
      cacheWritePromptTokens: cache.written,
    });
    const meta = {
      id: `chatcmpl-sim-${crypto.randomUUID().slice(0, 13)}`,
      created: Math.floor(Date.now() / 1000),
      model: opts.upstreamModel,
    };
    if (latencyMs > 0) await sleep(latencyMs, opts.signal);
    if (!req.stream) return { kind: 'json', body: completionOf(answer, meta) };

    const chunks = chunksOf(answer, meta, req.stream_options?.include_usage === true);
    const gapMs = tps > 0 ? 1000 / tps : 0;
    let i = 0;
    const body = new ReadableStream<Uint8Array>(
      {
        async pull(c) {
          const next = chunks[i++];
          if (!next) {
            c.enqueue(DONE_BYTES);
            return c.close();
          }
          if (next.paced && gapMs > 0) await sleep(gapMs, opts.signal).catch(() => {});
          if (opts.signal.aborted) return c.close();
          c.enqueue(encodeEvent(next.chunk));
        },
      },
      { highWaterMark: 0 },
    );
    return { kind: 'stream', body };
  };
}
