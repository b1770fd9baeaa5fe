import type { ChatChunk, ChunkTransformer } from './wire.js';

/**
 * A text filter that sees a stream's text in pieces: `push` returns what can be passed on
 * now and may hold back what a later piece could still change (a partial tag, an e-mail
 * still growing); `end` returns the rest. It may throw `refuse(...)` (a refusal mid-stream).
 */
export interface TextStage {
  push(piece: string): string;
  end(): string;
}

/** Stages run one after the other as one stage. */
export function chainStages(stages: readonly TextStage[]): TextStage {
  return {
    push: (piece) => stages.reduce((text, st) => (text === '' ? '' : st.push(text)), piece),
    end: () => stages.reduce((text, st) => (text === '' ? '' : st.push(text)) + st.end(), ''),
  };
}

/** The texts of a stream's deltas a stages transformer can run over: `tool_arguments` are `tool_calls[].function.arguments`. */
export type TextField = 'content' | 'reasoning_content' | 'tool_arguments';

type Delta = ChatChunk['choices'][number]['delta'];
type ToolCallDelta = { index: number; function?: { arguments?: string; [field: string]: unknown }; [field: string]: unknown };

/** True when a delta carries something besides (now empty) content worth sending. */
function hasOtherFields(delta: Delta): boolean {
  for (const key in delta) if (key !== 'content' && delta[key] !== undefined && delta[key] !== null && delta[key] !== '') return true;
  return false;
}

/** Adds `text` to the arguments of tool call `index` in `delta` (a new entry when the delta has none for it). */
function appendArguments(delta: Delta, index: number, text: string): void {
  const calls = (delta.tool_calls ??= []) as ToolCallDelta[];
  const call = calls.find((c) => c.index === index);
  if (!call) calls.push({ index, function: { arguments: text } });
  else call.function = { ...call.function, arguments: (call.function?.arguments ?? '') + text };
}

/**
 * A chunk transformer that runs each choice's text through its own `TextStage` (made on first
 * sight of the choice and field, `makeStage(field)`): `content` by default, `reasoning_content`
 * and each tool call's `arguments` when asked. Chunks are changed in place; one whose text was
 * all held back and that carries nothing else is dropped. What a stage still holds is released
 * into the choice's finish chunk, or at the end of the stream. The SSE layers stay the
 * pipeline's: a plugin writes a text filter, this makes it a stream transform.
 */
export function stagesTransformer(
  makeStage: (field: TextField) => TextStage,
  fields: readonly TextField[] = ['content'],
): ChunkTransformer {
  const stages = new Map<string, TextStage>();
  const stageOf = (key: string, field: TextField) => {
    let stage = stages.get(key);
    if (!stage) stages.set(key, (stage = makeStage(field)));
    return stage;
  };
  const texts = fields.filter((f): f is 'content' | 'reasoning_content' => f !== 'tool_arguments');
  const tools = fields.includes('tool_arguments');
  let last: ChatChunk | null = null;

  /** The choice's tool-call arguments through their stages; on its finish, what they hold is released into the delta. */
  function toolArguments(choice: ChatChunk['choices'][number]): void {
    const { delta } = choice;
    if (Array.isArray(delta.tool_calls))
      for (const call of delta.tool_calls as ToolCallDelta[]) {
        const args = call.function?.arguments;
        if (typeof args === 'string' && args !== '')
          call.function!.arguments = stageOf(`tool_arguments:${choice.index}:${call.index}`, 'tool_arguments').push(args);
      }
    if (choice.finish_reason === null) return;
    const prefix = `tool_arguments:${choice.index}:`;
    for (const [key, stage] of stages) {
      if (!key.startsWith(prefix)) continue;
      const rest = stage.end();
      if (rest) appendArguments(delta, Number(key.slice(prefix.length)), rest);
    }
  }

  return {
    transform(chunk, emit) {
      last = chunk;
      let keep = chunk.choices.length === 0 || chunk.usage != null;
      for (const choice of chunk.choices) {
        const delta = choice.delta;
        for (const field of texts) {
          const value = delta[field];
          if (choice.finish_reason === null && (typeof value !== 'string' || value === '')) continue;
          const stage = stageOf(`${field}:${choice.index}`, field);
          let text = typeof value === 'string' && value !== '' ? stage.push(value) : value;
          if (choice.finish_reason !== null) {
            const rest = stage.end();
            if (rest) text = (text ?? '') + rest;
          }
          if (text !== value) delta[field] = text;
        }
        if (tools) toolArguments(choice);
        if (delta.content || choice.finish_reason !== null || hasOtherFields(delta)) keep = true;
      }
      if (keep) emit(chunk);
    },
    flush(emit) {
      if (!last) return;
      for (const [key, stage] of stages) {
        const rest = stage.end();
        if (!rest) continue;
        const [field, index, call] = key.split(':') as [TextField, string, string | undefined];
        const delta: Delta =
          field === 'tool_arguments' ? { tool_calls: [{ index: Number(call), function: { arguments: rest } }] } : { [field]: rest };
        emit({ ...last, choices: [{ index: Number(index), delta, finish_reason: null }], usage: undefined });
      }
    },
  };
}
