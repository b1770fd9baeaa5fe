import type { SseEvent } from '../../src/stream/events';
import type { ChatChunk } from '../../src/stream/wire';
import { eventObject, StreamEventError, type StreamTranslator } from '../translate/stream';
import { blockOf, finishReasonOf, toolCallOf, usageOf, type GenerateContentAnswer } from './answer';

type Delta = ChatChunk['choices'][number]['delta'];

/**
 * Gemini's `streamGenerateContent?alt=sse` as chat-completions chunks: every event is a
 * partial answer whose parts are deltas (thought parts as `reasoning_content`, function
 * calls as whole `tool_calls`, each with the next index), the last one carries the finish
 * reason, and usage comes with the events (the last count wins). Gemini sends no end
 * event: an answer is complete when its finish reason came before the upstream closed.
 */
export function geminiStream(created: number, fallbackId: string): StreamTranslator {
  let id = fallbackId;
  let model = '';
  let started = false;
  let finished = false;
  let tools = 0;
  let usage: GenerateContentAnswer['usageMetadata'];

  const chunk = (delta: Delta, finish: string | null = null): ChatChunk => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model,
    choices: [{ index: 0, delta, finish_reason: finish }],
  });

  function translate(answer: GenerateContentAnswer, emit: (c: ChatChunk) => void) {
    const error = (answer as { error?: { code?: number; message?: string } }).error;
    if (error) {
      const code = error.code ?? 0;
      throw new StreamEventError(`The upstream failed: ${error.message ?? code}`, code === 429 || code === 503);
    }
    if (!started) {
      const block = blockOf(answer);
      if (block) throw new StreamEventError(block.message, false, block);
      started = true;
      id = answer.responseId ?? id;
      model = answer.modelVersion ?? model;
      emit(chunk({ role: 'assistant', content: '' }));
    }
    if (answer.usageMetadata) usage = answer.usageMetadata;
    if (answer.promptFeedback?.blockReason && !finished) {
      finished = true;
      emit(chunk({}, 'content_filter'));
      return;
    }
    const candidate = answer.candidates?.[0];
    for (const part of candidate?.content?.parts ?? []) {
      if (part.functionCall) {
        emit(chunk({ tool_calls: [{ index: tools, ...toolCallOf(part, tools) }] }));
        tools++;
      } else if (typeof part.text === 'string' && part.text)
        emit(chunk(part.thought ? { reasoning_content: part.text } : { content: part.text }));
    }
    if (candidate?.finishReason && !finished) {
      finished = true;
      emit(chunk({}, finishReasonOf(candidate.finishReason, tools > 0)));
    }
  }

  return {
    event(e: SseEvent, emit) {
      translate(eventObject(e.data) as GenerateContentAnswer, emit);
    },
    end(emit) {
      if (!finished) return false;
      emit({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: usageOf(usage) });
      return true;
    },
  };
}
