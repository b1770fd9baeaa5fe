import { chatPromptTokens, contentText as textOf } from '../../src/pipeline/tokens';
import { DONE_BYTES, encodeEvent } from '../../src/stream/encoder';
import type { ChatChunk, ChatCompletion, ChatUsage, UpstreamChatRequest } from '../../src/stream/wire';
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

/** The canned answer, split into tokens (a word and its following space each). */
function answerTokens(req: UpstreamChatRequest, think: boolean): { tokens: string[]; reasoning: number } {
  const lastUser = [...req.messages].reverse().find((m) => m.role === 'user');
  const said = textOf(lastUser?.content ?? '')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 200);
  const answer = `This is the svc simulator: no model weights, canned text. You said: "${said}". Configure a provider to get real answers.`;
  const thought = think ? `<think>\nThe user wrote ${said.length} characters. I will answer briefly.\n</think>\n\n` : '';
  const split = (s: string) => s.match(/\S+\s*|\s+/g) ?? [];
  const thinkTokens = split(thought);
  return { tokens: [...thinkTokens, ...split(answer)], reasoning: thinkTokens.length };
}

/**
 * The simulator's chat: answers chat-completions in JSON and SSE with configurable latency
 * and speed, tokenizer-counted usage, and `<think>` blocks for reasoning models unless
 * thinking is disabled.
 */
export function simulatedChat(o: { options: SimulatorOptions; isReasoning: (model: string) => boolean }): ProviderCalls['chat'] {
  const latencyMs = num(o.options.latencyMs, 20);
  const tps = num(o.options.tokensPerSecond, 200);
  const thinking = o.options.thinking !== false;

  return async function chat(req, opts) {
    const think = thinking && o.isReasoning(opts.upstreamModel) && !thinkingDisabled(req);
    const all = answerTokens(req, think);
    const max = req.max_completion_tokens ?? req.max_tokens;
    const tokens = max && max > 0 ? all.tokens.slice(0, max) : all.tokens;
    const finish = tokens.length < all.tokens.length ? 'length' : 'stop';
    const reasoning = Math.min(all.reasoning, tokens.length);
    const promptTokens = chatPromptTokens(req.messages);
    const usage: ChatUsage = {
      prompt_tokens: promptTokens,
      completion_tokens: tokens.length,
      total_tokens: promptTokens + tokens.length,
      completion_tokens_details: reasoning ? { reasoning_tokens: reasoning } : null,
    };
    const id = `chatcmpl-sim-${crypto.randomUUID().slice(0, 13)}`;
    const created = Math.floor(Date.now() / 1000);
    if (latencyMs > 0) await sleep(latencyMs, opts.signal);

    if (!req.stream) {
      const body: ChatCompletion = {
        id,
        object: 'chat.completion',
        created,
        model: opts.upstreamModel,
        choices: [{ index: 0, message: { role: 'assistant', content: tokens.join('') }, finish_reason: finish, logprobs: null }],
        usage,
      };
      return { kind: 'json', body };
    }

    const chunk = (delta: ChatChunk['choices'][number]['delta'], finishReason: string | null): ChatChunk => ({
      id,
      object: 'chat.completion.chunk',
      created,
      model: opts.upstreamModel,
      choices: [{ index: 0, delta, finish_reason: finishReason }],
    });
    const gapMs = tps > 0 ? 1000 / tps : 0;
    let i = -1;
    const body = new ReadableStream<Uint8Array>(
      {
        async pull(c) {
          if (i === -1) c.enqueue(encodeEvent(chunk({ role: 'assistant', content: '' }, null)));
          else if (i < tokens.length) {
            if (gapMs > 0) await sleep(gapMs, opts.signal).catch(() => {});
            if (opts.signal.aborted) return c.close();
            c.enqueue(encodeEvent(chunk({ content: tokens[i] }, null)));
          } else {
            c.enqueue(encodeEvent(chunk({}, finish)));
            if (req.stream_options?.include_usage) c.enqueue(encodeEvent({ ...chunk({}, null), choices: [], usage }));
            c.enqueue(DONE_BYTES);
            c.close();
          }
          i++;
        },
      },
      { highWaterMark: 0 },
    );
    return { kind: 'stream', body };
  };
}
