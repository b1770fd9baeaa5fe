import { stagesTransformer, type ChatCompletion, type ChunkTransformer } from '@svc/plugin-sdk';
import { stripThink, ThinkStripper } from './stripper';

/** Options shared by strip_thinking_response and disable_thinking. */
export interface StripOptions {
  /** Also drop `reasoning_content` (disable_thinking: the caller asked for no thinking). */
  dropReasoning?: boolean;
}

/**
 * The stream side: the SDK's stages transformer with one ThinkStripper per choice (chunks
 * changed in place, one left with nothing to send dropped, a partial tag still held at
 * `finish_reason` or at the end released as text); with `dropReasoning` the deltas'
 * `reasoning_content` is removed first.
 */
export function stripThinkStream(opts: StripOptions = {}): ChunkTransformer {
  const stripping = stagesTransformer(() => new ThinkStripper());
  if (!opts.dropReasoning) return stripping;
  return {
    transform(chunk, emit) {
      for (const choice of chunk.choices) if (choice.delta.reasoning_content != null) delete choice.delta.reasoning_content;
      stripping.transform(chunk, emit);
    },
    flush: stripping.flush,
  };
}

/** The non-streaming side: strips every choice's message content in place. */
export function stripThinkResponse(body: ChatCompletion, opts: StripOptions = {}): ChatCompletion {
  for (const choice of body.choices) {
    const message = choice.message;
    if (typeof message.content === 'string') message.content = stripThink(message.content);
    if (opts.dropReasoning && message.reasoning_content != null) delete message.reasoning_content;
  }
  return body;
}
