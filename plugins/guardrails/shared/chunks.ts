import type { ChatChunk, ChunkTransformer } from '@svc/plugin-sdk';
import type { TextStage } from './stages';

/** True when a delta carries something besides (now empty) content worth sending. */
function hasOtherFields(delta: ChatChunk['choices'][number]['delta']): boolean {
  for (const key in delta) if (key !== 'content' && delta[key] !== undefined && delta[key] !== null) return true;
  return false;
}

/**
 * Runs each choice's content through its own text stage (made on first sight of the choice).
 * Chunks are changed in place; one whose content was all held back and that carries nothing
 * else is dropped. What a stage still holds is released into the choice's finish chunk, or
 * at the end of the stream. A stage may throw (a refusal mid-stream): the pipeline ends the
 * stream with `content_filter`.
 */
export function stagesTransformer(makeStage: () => TextStage): ChunkTransformer {
  const stages = new Map<number, TextStage>();
  const stageOf = (index: number) => {
    let stage = stages.get(index);
    if (!stage) stages.set(index, (stage = makeStage()));
    return stage;
  };
  let last: ChatChunk | null = null;
  return {
    transform(chunk, emit) {
      last = chunk;
      let keep = chunk.choices.length === 0 || chunk.usage != null;
      for (const choice of chunk.choices) {
        const delta = choice.delta;
        const stage = stageOf(choice.index);
        let text = typeof delta.content === 'string' && delta.content !== '' ? stage.push(delta.content) : delta.content;
        if (choice.finish_reason !== null) {
          const rest = stage.end();
          if (rest) text = (text ?? '') + rest;
        }
        if (text !== delta.content) delta.content = text;
        if (text || choice.finish_reason !== null || hasOtherFields(delta)) keep = true;
      }
      if (keep) emit(chunk);
    },
    flush(emit) {
      if (!last) return;
      for (const [index, stage] of stages) {
        const rest = stage.end();
        if (rest) emit({ ...last, choices: [{ index, delta: { content: rest }, finish_reason: null }], usage: undefined });
      }
    },
  };
}
