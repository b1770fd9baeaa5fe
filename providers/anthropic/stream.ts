import type { RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import type { SseEvent } from '../../src/stream/events';
import type { ChatChunk } from '../../src/stream/wire';
import { upstreamRejected } from '../errors';
import { eventObject, StreamEventError, type StreamTranslator } from '../translate/stream';
import { finishReasonOf, usageOf, type AnthropicUsage } from './answer';

type Delta = ChatChunk['choices'][number]['delta'];

/** Anthropic error types that mean "try again elsewhere" rather than "this request is wrong". */
const AT_CAPACITY = new Set(['overloaded_error', 'rate_limit_error']);
/** Anthropic error types that mean "this request is wrong", with the status their HTTP form has. */
const REQUEST_ERRORS: Record<string, number | undefined> = { invalid_request_error: 400, request_too_large: 413 };

/**
 * Anthropic's Messages stream as chat-completions chunks, one event at a time: text deltas
 * become `content`, thinking deltas `reasoning_content`, tool_use blocks `tool_calls` with
 * their own index (counted among tool calls, not content blocks) and their JSON arguments
 * streamed as they come; `message_delta` gives the finish reason, and `message_stop` the
 * usage chunk. Nothing of the answer is kept but the counts.
 */
export function anthropicStream(created: number): StreamTranslator {
  let id = '';
  let model = '';
  const usage: AnthropicUsage = { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  // Content block index -> tool call index, for the blocks that are tool calls.
  const tools = new Map<number, number>();
  let stopped = false;

  const chunk = (delta: Delta, finish: string | null = null): ChatChunk => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model,
    choices: [{ index: 0, delta, finish_reason: finish }],
  });

  /** Takes the counts an event carries (message_start has them all; message_delta the output, and sometimes the rest). */
  function count(u: Partial<AnthropicUsage> | null | undefined) {
    if (!u) return;
    if (typeof u.input_tokens === 'number') usage.input_tokens = u.input_tokens;
    if (typeof u.output_tokens === 'number') usage.output_tokens = u.output_tokens;
    if (typeof u.cache_creation_input_tokens === 'number') usage.cache_creation_input_tokens = u.cache_creation_input_tokens;
    if (typeof u.cache_read_input_tokens === 'number') usage.cache_read_input_tokens = u.cache_read_input_tokens;
  }

  function translate(
    e: RawMessageStreamEvent | { type: 'error'; error?: { type?: string; message?: string } } | { type: 'ping' },
    emit: (c: ChatChunk) => void,
  ) {
    switch (e.type) {
      case 'message_start':
        id = e.message.id;
        model = e.message.model;
        count(e.message.usage);
        emit(chunk({ role: 'assistant', content: '' }));
        return;
      case 'content_block_start': {
        const block = e.content_block;
        if (block.type === 'tool_use') {
          const index = tools.size;
          tools.set(e.index, index);
          emit(chunk({ tool_calls: [{ index, id: block.id, type: 'function', function: { name: block.name, arguments: '' } }] }));
        } else if (block.type === 'text' && block.text) emit(chunk({ content: block.text }));
        else if (block.type === 'redacted_thinking') emit(chunk({ thinking_blocks: [{ type: 'redacted_thinking', data: block.data }] }));
        return;
      }
      case 'content_block_delta': {
        const d = e.delta;
        if (d.type === 'text_delta') emit(chunk({ content: d.text }));
        else if (d.type === 'thinking_delta') emit(chunk({ reasoning_content: d.thinking }));
        else if (d.type === 'signature_delta') emit(chunk({ thinking_blocks: [{ type: 'thinking', signature: d.signature }] }));
        else if (d.type === 'input_json_delta') {
          const index = tools.get(e.index);
          if (index !== undefined && d.partial_json) emit(chunk({ tool_calls: [{ index, function: { arguments: d.partial_json } }] }));
        }
        return;
      }
      case 'message_delta':
        count(e.usage);
        emit(chunk({}, finishReasonOf(e.delta.stop_reason)));
        return;
      case 'message_stop':
        stopped = true;
        emit({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: usageOf(usage) });
        return;
      case 'error': {
        const type = e.error?.type ?? 'api_error';
        const detail = e.error?.message ?? type;
        // Before any content, a request Anthropic refuses is the client's to change (400, 413), as
        // the same refusal as an HTTP status would be; mid-stream every error is in-band.
        const refused = REQUEST_ERRORS[type];
        throw new StreamEventError(
          `The upstream failed: ${detail}`,
          AT_CAPACITY.has(type),
          refused === undefined ? undefined : upstreamRejected(refused, detail),
        );
      }
      default:
      // ping, content_block_stop and event kinds added later carry nothing for a chat client.
    }
  }

  return {
    event(e: SseEvent, emit) {
      const parsed = eventObject(e.data);
      if (typeof parsed.type !== 'string') throw new StreamEventError('The upstream sent a malformed stream event');
      try {
        translate(parsed as unknown as RawMessageStreamEvent, emit);
      } catch (error) {
        if (error instanceof StreamEventError) throw error;
        throw new StreamEventError('The upstream sent a malformed stream event');
      }
    },
    end: () => stopped,
  };
}
