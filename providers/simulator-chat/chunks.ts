import type { ChatChunk, ChatCompletion } from '../../src/stream/wire';
import type { SimulatedAnswer, SimulatedChoice } from './answer';

/** The id, time and model name every object of one answer carries. */
export interface AnswerMeta {
  id: string;
  created: number;
  model: string;
}

/** One chunk of a simulated stream; `paced` chunks are sent at the configured token speed. */
export interface PacedChunk {
  chunk: ChatChunk;
  paced: boolean;
}

/** Characters of tool-call arguments per stream chunk. */
const ARGUMENT_PIECE = 12;

const logprobsField = (c: SimulatedChoice) => (c.logprobs ? { content: c.logprobs, refusal: null } : null);

/** The non-streaming chat.completion of an answer. */
export function completionOf(answer: SimulatedAnswer, meta: AnswerMeta): ChatCompletion {
  return {
    id: meta.id,
    object: 'chat.completion',
    created: meta.created,
    model: meta.model,
    choices: answer.choices.map((c) => ({
      index: c.index,
      message: {
        role: 'assistant' as const,
        content: c.toolCalls.length ? null : c.tokens.join(''),
        ...(c.toolCalls.length ? { tool_calls: c.toolCalls } : {}),
      },
      finish_reason: c.finishReason,
      logprobs: logprobsField(c),
    })),
    usage: answer.usage,
    ...(answer.citations ? { citations: answer.citations } : {}),
  };
}

/**
 * The chunks of a streamed answer, choice after choice: a role chunk, the content tokens
 * (each with its logprobs when asked) or the tool calls (name first, then the arguments in
 * pieces, as OpenAI streams them), a finish chunk; then the usage chunk when asked.
 */
export function chunksOf(answer: SimulatedAnswer, meta: AnswerMeta, includeUsage: boolean): PacedChunk[] {
  const chunk = (index: number, delta: ChatChunk['choices'][number]['delta'], finish: string | null, extra = {}): ChatChunk => ({
    id: meta.id,
    object: 'chat.completion.chunk',
    created: meta.created,
    model: meta.model,
    choices: [{ index, delta, finish_reason: finish, ...extra }],
  });
  const out: PacedChunk[] = [];
  for (const c of answer.choices) {
    out.push({ chunk: chunk(c.index, { role: 'assistant', content: c.toolCalls.length ? null : '' }, null), paced: false });
    c.tokens.forEach((token, i) =>
      out.push({
        chunk: chunk(c.index, { content: token }, null, c.logprobs ? { logprobs: { content: [c.logprobs[i]], refusal: null } } : {}),
        paced: true,
      }),
    );
    c.toolCalls.forEach((call, k) => {
      const head = { index: k, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } };
      out.push({ chunk: chunk(c.index, { tool_calls: [head] }, null), paced: true });
      const args = call.function.arguments;
      for (let i = 0; i < args.length; i += ARGUMENT_PIECE)
        out.push({
          chunk: chunk(c.index, { tool_calls: [{ index: k, function: { arguments: args.slice(i, i + ARGUMENT_PIECE) } }] }, null),
          paced: true,
        });
    });
    out.push({ chunk: chunk(c.index, {}, c.finishReason), paced: false });
  }
  // xAI sends the citations of a live search with the last chunk of the answer.
  if (answer.citations) Object.assign(out.at(-1)!.chunk, { citations: answer.citations });
  if (includeUsage)
    out.push({
      chunk: { id: meta.id, object: 'chat.completion.chunk', created: meta.created, model: meta.model, choices: [], usage: answer.usage },
      paced: false,
    });
  return out;
}
