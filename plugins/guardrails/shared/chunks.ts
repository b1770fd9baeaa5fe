import type { ChatChunk, ChunkTransformer } from '@svc/plugin-sdk';
import type { TextStage } from './stages';

/** True when a delta carries something besides (now empty) content worth sending. */
function hasOtherFields(delta: ChatChunk['choices'][number]['delta']): boolean {
  for (const key in delta) if (key !== 'content' && delta[key] !== undefined && delta[key] !== null && delta[key] !== '') return true;
  return false;
}

/** The text fields of a delta a transformer may run its stages over. */
export type TextField = 'content' | 'reasoning_content';

/**
 * Runs each choice's text (`content`, and `reasoning_content` when asked) through its own
 * text stage, made on first sight of the choice and field. Chunks are changed in place; one
 * whose text was all held back and that carries nothing else is dropped. What a stage still
 * holds is released into the choice's finish chunk, or at the end of the stream. A stage may
 * throw (a refusal mid-stream): the pipeline ends the stream with `content_filter`.
 */
export function stagesTransformer(makeStage: () => TextStage, fields: readonly TextField[] = ['content']): ChunkTransformer {
  const stages = new Map<string, TextStage>();
  const stageOf = (field: TextField, index: number) => {
    const key = `${field}:${index}`;
    let stage = stages.get(key);
    if (!stage) stages.set(key, (stage = makeStage()));
    return stage;
  };
  let last: ChatChunk | null = null;
  return {
    transform(chunk, emit) {
      last = chunk;
      let keep = chunk.choices.length === 0 || chunk.usage != null;
      for (const choice of chunk.choices) {
        const delta = choice.delta;
        for (const field of fields) {
          const value = delta[field];
          if (choice.finish_reason === null && (typeof value !== 'string' || value === '')) continue;
          const stage = stageOf(field, choice.index);
          let text = typeof value === 'string' && value !== '' ? stage.push(value) : value;
          if (choice.finish_reason !== null) {
            const rest = stage.end();
            if (rest) text = (text ?? '') + rest;
          }
          if (text !== value) delta[field] = text;
        }
        if (delta.content || choice.finish_reason !== null || hasOtherFields(delta)) keep = true;
      }
      if (keep) emit(chunk);
    },
    flush(emit) {
      if (!last) return;
      for (const [key, stage] of stages) {
        const rest = stage.end();
        const [field, index] = key.split(':') as [TextField, string];
        if (rest) emit({ ...last, choices: [{ index: Number(index), delta: { [field]: rest }, finish_reason: null }], usage: undefined });
      }
    },
  };
}
