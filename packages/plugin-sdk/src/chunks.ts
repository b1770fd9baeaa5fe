import type { ChatChunk, ChatCompletion, ChatUsage } from './wire.js';

/** Characters of content per replayed chunk, unless told. */
const PIECE = 16;

type Delta = ChatChunk['choices'][number]['delta'];
type ToolCallDelta = { index: number; id?: string; type?: string; function?: { name?: string; arguments?: string } };

/**
 * A completion replayed as a stream's chunks, like an upstream would send them: the role,
 * the content (and reasoning) in pieces of `piece` characters, tool-call deltas, the finish
 * chunk, then a usage chunk (with no choices). The pipeline strips the usage chunk when the
 * client did not ask for it, and writes `[DONE]`.
 */
export function completionToChunks(completion: ChatCompletion, opts: { piece?: number } = {}): ChatChunk[] {
  const piece = Math.max(1, opts.piece ?? PIECE);
  const out: ChatChunk[] = [];
  const chunk = (index: number, delta: Delta, finish: string | null): ChatChunk => ({
    id: completion.id,
    object: 'chat.completion.chunk',
    created: completion.created,
    model: completion.model,
    choices: [{ index, delta, finish_reason: finish }],
  });
  for (const choice of completion.choices) {
    const { message, index } = choice;
    out.push(chunk(index, { role: 'assistant', content: '' }, null));
    const reasoning = typeof message.reasoning_content === 'string' ? message.reasoning_content : '';
    for (let i = 0; i < reasoning.length; i += piece) out.push(chunk(index, { reasoning_content: reasoning.slice(i, i + piece) }, null));
    const content = typeof message.content === 'string' ? message.content : '';
    for (let i = 0; i < content.length; i += piece) out.push(chunk(index, { content: content.slice(i, i + piece) }, null));
    const calls = (message.tool_calls ?? []) as { id?: string; type?: string; function?: { name?: string; arguments?: string } }[];
    calls.forEach((call, i) => {
      const delta: ToolCallDelta = {
        index: i,
        id: call.id,
        type: call.type ?? 'function',
        function: { name: call.function?.name, arguments: '' },
      };
      out.push(chunk(index, { tool_calls: [delta] }, null));
      const args = call.function?.arguments ?? '';
      for (let j = 0; j < args.length; j += piece)
        out.push(chunk(index, { tool_calls: [{ index: i, function: { arguments: args.slice(j, j + piece) } }] }, null));
    });
    out.push(chunk(index, {}, choice.finish_reason ?? 'stop'));
  }
  out.push({
    id: completion.id,
    object: 'chat.completion.chunk',
    created: completion.created,
    model: completion.model,
    choices: [],
    usage: completion.usage,
  });
  return out;
}

type Choice = ChatCompletion['choices'][number];

/** The choice of `index`, made on first sight. */
function choiceOf(choices: Choice[], index: number): Choice {
  let c = choices.find((x) => x.index === index);
  if (!c) {
    c = { index, message: { role: 'assistant', content: null }, finish_reason: null, logprobs: null };
    choices.push(c);
  }
  return c;
}

/** Merges one tool-call delta into the message's calls (deltas of one call share its `index`). */
function mergeToolCall(calls: ToolCallDelta[], d: ToolCallDelta): void {
  let call = calls.find((c) => c.index === d.index);
  if (!call) {
    call = { index: d.index, function: { name: '', arguments: '' } };
    calls.push(call);
  }
  if (d.id) call.id = d.id;
  if (d.type) call.type = d.type;
  if (d.function?.name) call.function!.name = (call.function!.name ?? '') + d.function.name;
  if (d.function?.arguments) call.function!.arguments = (call.function!.arguments ?? '') + d.function.arguments;
}

/** A stream's chunks assembled into the completion they make (content, reasoning, tool calls, finish reasons, usage). */
export function chunksToCompletion(chunks: readonly ChatChunk[]): ChatCompletion {
  const first = chunks[0];
  const choices: Choice[] = [];
  const calls = new Map<number, ToolCallDelta[]>();
  let usage: ChatUsage | null = null;
  for (const c of chunks) {
    if (c.usage) usage = c.usage;
    for (const ch of c.choices ?? []) {
      const choice = choiceOf(choices, ch.index);
      const { delta } = ch;
      if (typeof delta?.content === 'string') choice.message.content = (choice.message.content ?? '') + delta.content;
      if (typeof delta?.reasoning_content === 'string')
        choice.message.reasoning_content = (choice.message.reasoning_content ?? '') + delta.reasoning_content;
      if (Array.isArray(delta?.tool_calls)) {
        let list = calls.get(ch.index);
        if (!list) calls.set(ch.index, (list = []));
        for (const d of delta.tool_calls as ToolCallDelta[]) mergeToolCall(list, d);
      }
      if (ch.finish_reason) choice.finish_reason = ch.finish_reason;
    }
  }
  for (const [index, list] of calls) choiceOf(choices, index).message.tool_calls = list.map(({ index: _i, ...call }) => call);
  choices.sort((a, b) => a.index - b.index);
  return {
    id: first?.id ?? '',
    object: 'chat.completion',
    created: first?.created ?? 0,
    model: first?.model ?? '',
    choices,
    usage: usage ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
  };
}
