import type { ContentBlock, Message, MessageDeltaUsage, StopReason, Usage } from '@anthropic-ai/sdk/resources/messages';
import type { ChatCompletion, ChatUsage } from '../../src/stream/wire';
import { upstreamUnavailable } from '../errors';

/** An Anthropic stop reason as a chat-completions `finish_reason`. */
export function finishReasonOf(reason: StopReason | null | undefined): string {
  switch (reason) {
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'refusal':
      return 'content_filter';
    default:
      return 'stop';
  }
}

/** The token counts Anthropic reports, from a message or a message_delta (absent ones as 0). */
export type AnthropicUsage = Pick<
  Usage | MessageDeltaUsage,
  'input_tokens' | 'output_tokens' | 'cache_creation_input_tokens' | 'cache_read_input_tokens'
>;

const count = (n: unknown) => (typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : 0);

/**
 * Anthropic usage as chat-completions usage: its `input_tokens` leave out the tokens read
 * from and written to the cache, so the prompt is their sum, with the two cache counts in
 * `prompt_tokens_details` (priced at `cacheInput` and `cacheWrite`).
 */
export function usageOf(u: AnthropicUsage): ChatUsage {
  const read = count(u.cache_read_input_tokens);
  const written = count(u.cache_creation_input_tokens);
  const prompt = count(u.input_tokens) + read + written;
  const completion = count(u.output_tokens);
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: read, cache_creation_input_tokens: written },
  };
}

/**
 * A thinking block's seal, as `thinking_blocks` carries it (the convention of LiteLLM): the
 * signature (or the encrypted data of a redacted block) without the text, which is
 * `reasoning_content`. A client that sends the assistant message back with both keeps a
 * thinking model's tool loop valid: Anthropic checks the signature on the next turn.
 */
export type ThinkingSeal = { type: 'thinking'; signature: string } | { type: 'redacted_thinking'; data: string };

/** The message, text, reasoning and tool calls of Anthropic content blocks (other block kinds are server-side and left out). */
function messageOf(blocks: ContentBlock[]): ChatCompletion['choices'][number]['message'] {
  let content = '';
  let reasoning = '';
  const toolCalls: unknown[] = [];
  const seals: ThinkingSeal[] = [];
  for (const block of blocks) {
    if (block.type === 'text') content += block.text;
    else if (block.type === 'thinking') {
      reasoning += block.thinking;
      seals.push({ type: 'thinking', signature: block.signature });
    } else if (block.type === 'redacted_thinking') seals.push({ type: 'redacted_thinking', data: block.data });
    else if (block.type === 'tool_use')
      toolCalls.push({ id: block.id, type: 'function', function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) } });
  }
  return {
    role: 'assistant',
    content: content || (toolCalls.length ? null : ''),
    ...(reasoning ? { reasoning_content: reasoning } : {}),
    ...(seals.length ? { thinking_blocks: seals } : {}),
    ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
  };
}

/** An Anthropic Message as a chat completion; a body that is not one is a broken answer (502, retried). */
export function completionOf(message: Message, created: number): ChatCompletion {
  if (message?.type !== 'message' || !Array.isArray(message.content) || typeof message.usage !== 'object' || message.usage === null)
    throw upstreamUnavailable('the upstream sent a broken answer');
  return {
    id: message.id,
    object: 'chat.completion',
    created,
    model: message.model,
    choices: [{ index: 0, message: messageOf(message.content), finish_reason: finishReasonOf(message.stop_reason), logprobs: null }],
    usage: usageOf(message.usage),
  };
}
