import { type ChatChunk, type ChatCompletion, type ChunkTransformer } from '@svc/plugin-sdk';
import { stripThink, ThinkStripper } from './stripper';

/** Options shared by strip_thinking_response and disable_thinking. */
export interface StripOptions {
  /** Also drop `reasoning_content` (disable_thinking: the caller asked for no thinking). */
  dropReasoning?: boolean;
}

/** True when a delta carries something besides (now empty) content worth sending. */
function hasOtherFields(delta: ChatChunk['choices'][number]['delta']): boolean {
  for (const key in delta) if (key !== 'content' && delta[key] !== undefined && delta[key] !== null) return true;
  return false;
}

/**
 * The stream side: a chunk transformer with one ThinkStripper per choice
 * index in its closure. Chunks are changed in place (each was decoded for this request);
 * a chunk whose content became empty and that carries nothing else is dropped. A partial
 * tag still held at `finish_reason` or at the end is released as text.
 */
export function stripThinkStream(opts: StripOptions = {}): ChunkTransformer {
  // Keyed by the upstream's choice index: a sparse or huge index must not size an array.
  const strippers = new Map<number, ThinkStripper>();
  let last: ChatChunk | null = null;
  return {
    transform(chunk, emit) {
      last = chunk;
      let keep = chunk.choices.length === 0 || chunk.usage != null;
      for (const choice of chunk.choices) {
        const delta = choice.delta;
        if (opts.dropReasoning && delta.reasoning_content != null) delete delta.reasoning_content;
        let stripper = strippers.get(choice.index);
        if (!stripper) strippers.set(choice.index, (stripper = new ThinkStripper()));
        let text = typeof delta.content === 'string' && delta.content !== '' ? stripper.push(delta.content) : delta.content;
        if (choice.finish_reason !== null) {
          const rest = stripper.end();
          if (rest) text = (text ?? '') + rest;
        }
        if (text !== delta.content) delta.content = text;
        if (text || choice.finish_reason !== null || hasOtherFields(delta)) keep = true;
      }
      if (keep) emit(chunk);
    },
    flush(emit) {
      if (!last) return;
      for (const [index, stripper] of strippers) {
        const rest = stripper.end();
        if (rest) emit({ ...last, choices: [{ index, delta: { content: rest }, finish_reason: null }], usage: undefined });
      }
    },
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
