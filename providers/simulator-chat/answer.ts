import type { Capabilities } from '../../src/models/schema';
import type { ChatUsage, UpstreamChatRequest } from '../../src/stream/wire';
import { contentText } from '../../src/pipeline/tokens';
import { groundingOf } from './grounding';
import { logprobsOf, type TokenLogprob } from './logprobs';
import { promptedSchema } from './prompted-json';
import { sampleOf, seedOf, type JsonSchema } from './sample';
import { chosenTools, functionTools, toolCallOf, trailingToolResults, type ToolCall } from './tools';

/** What the simulator knows about the model it plays. */
export interface SimulatedModel {
  /** Whether this answer starts with a `<think>` block (a reasoning model, thinking not disabled). */
  think: boolean;
  /** The catalog flags of the model: tools need supportsFunctionCalling, logprobs supportsLogProbs. */
  capabilities: Partial<Capabilities>;
  /** The prompt's token count, as the caller estimates it. */
  promptTokens: number;
  /** Of those, the tokens a simulated prompt cache served (models with supportsPromptCaching). */
  cachedPromptTokens?: number;
  /** Of those, the tokens written to the simulated cache (a miss on a prefix with a `cache_control` marker). */
  cacheWritePromptTokens?: number;
}

/** One simulated choice: its content as tokens, or its tool calls. */
export interface SimulatedChoice {
  index: number;
  /** Content tokens; joined they are the message content (a `<think>` block first when thinking). */
  tokens: string[];
  /** How many of the first tokens are the `<think>` block. */
  reasoningTokens: number;
  toolCalls: ToolCall[];
  finishReason: 'stop' | 'length' | 'tool_calls';
  /** Per-token log probabilities when the request asked and the model declares them. */
  logprobs: TokenLogprob[] | null;
}

/** The whole simulated answer: `n` choices and their usage. */
export interface SimulatedAnswer {
  choices: SimulatedChoice[];
  usage: ChatUsage;
  /** Source URLs of a native live search (xAI `search_parameters`), as xAI returns them; null without one. */
  citations: string[] | null;
}

/** The most choices one request gets (the chat-completions interface allows up to 128). */
export const MAX_CHOICES = 128;

/** Words with their following space; runs longer than 8 characters (JSON) cut in 4-character pieces. */
export function splitTokens(text: string): string[] {
  const out: string[] = [];
  for (const piece of text.match(/\S+\s*|\s+/g) ?? []) {
    if (piece.length <= 8) out.push(piece);
    else for (let i = 0; i < piece.length; i += 4) out.push(piece.slice(i, i + 4));
  }
  return out;
}

/** The earliest `stop` sequence in `text`, cut there (the sequence itself is not returned). */
export function cutAtStop(text: string, stop: unknown): { text: string; stopped: boolean } {
  const sequences = (typeof stop === 'string' ? [stop] : Array.isArray(stop) ? stop : []).filter(
    (s): s is string => typeof s === 'string' && s.length > 0,
  );
  let at = -1;
  for (const s of sequences) {
    const i = text.indexOf(s);
    if (i >= 0 && (at < 0 || i < at)) at = i;
  }
  return at < 0 ? { text, stopped: false } : { text: text.slice(0, at), stopped: true };
}

/** The response_format a model honours: json_schema only with supportsResponseSchema, json_object always. */
function formatOf(req: UpstreamChatRequest, model: SimulatedModel): { type?: string; json_schema?: { schema?: JsonSchema } } | undefined {
  const format = req.response_format as { type?: string; json_schema?: { schema?: JsonSchema } } | undefined;
  return format?.type === 'json_schema' && model.capabilities.supportsResponseSchema !== true ? undefined : format;
}

/** The answer text: JSON for response_format, a summary of tool results after a tool call, else the canned reply. */
function answerText(req: UpstreamChatRequest, format: ReturnType<typeof formatOf>, said: string, seed: number, note: string): string {
  if (format?.type === 'json_schema') return JSON.stringify(sampleOf(format.json_schema?.schema ?? {}, seed));
  // json_object: an object of the shape the prompt shows (a schema or an example), as a model would try to give.
  const prompted = format?.type === 'json_object' ? promptedSchema(req.messages) : null;
  if (prompted) return JSON.stringify(sampleOf(prompted, seed));
  const results = trailingToolResults(req.messages);
  const reply = results
    ? `This is the svc simulator, answering from the tool results: ${results}.`
    : `This is the svc simulator: no model weights, canned text. You said: "${said}".${note ? ` ${note}` : ''} Configure a provider to get real answers.`;
  if (format?.type === 'json_object') return JSON.stringify({ answer: reply, simulated: true });
  return reply;
}

/**
 * The simulated reply to a chat-completions request, as pure data. It honours what the
 * catalog says the model can do: `tools` and `tool_choice` (arguments sampled from the
 * tool's JSON Schema) on models with supportsFunctionCalling, `response_format`
 * (`json_object`: a JSON object, of the schema or example the prompt shows when it shows one;
 * `json_schema`: an instance of the schema, on models with
 * supportsResponseSchema), `n` choices,
 * `stop` sequences, `max_tokens`/`max_completion_tokens`, and `logprobs`/`top_logprobs`
 * on models with supportsLogProbs. The same request always gets the same answer.
 */
export function simulateChat(req: UpstreamChatRequest, model: SimulatedModel): SimulatedAnswer {
  const lastUser = [...req.messages].reverse().find((m) => m.role === 'user');
  const said = contentText(lastUser?.content ?? '')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 200);
  const tools = model.capabilities.supportsFunctionCalling ? functionTools(req) : [];
  const calling = chosenTools(req, tools, said);
  const n = Math.min(MAX_CHOICES, Math.max(1, typeof req.n === 'number' ? Math.floor(req.n) : 1));
  const max = req.max_completion_tokens ?? req.max_tokens;
  const wantLogprobs = req.logprobs === true && model.capabilities.supportsLogProbs === true;
  const baseSeed = seedOf(JSON.stringify(req.messages));
  const grounding = groundingOf(req, said);
  const format = formatOf(req, model);

  const choices: SimulatedChoice[] = [];
  let completionTokens = 0;
  let reasoningTotal = 0;
  for (let index = 0; index < n; index++) {
    const seed = (baseSeed + index * 7919) & 0x7fffffff;
    if (calling.length) {
      const calls = calling.map((tool, k) => toolCallOf(tool, (seed + k * 104729) & 0x7fffffff, said));
      for (const call of calls) completionTokens += Math.ceil((call.function.name.length + call.function.arguments.length) / 4);
      choices.push({ index, tokens: [], reasoningTokens: 0, toolCalls: calls, finishReason: 'tool_calls', logprobs: null });
      continue;
    }
    // JSON answers must parse, so they carry no inline <think> block.
    const json = format?.type?.startsWith('json_') === true;
    const thought = model.think && !json ? `<think>\nThe user wrote ${said.length} characters. I will answer briefly.\n</think>\n\n` : '';
    const { text } = cutAtStop(thought + answerText(req, format, said, seed, grounding.note), req.stop);
    const all = splitTokens(text);
    const tokens = max && max > 0 ? all.slice(0, max) : all;
    const reasoningTokens = Math.min(splitTokens(thought).length, tokens.length);
    completionTokens += tokens.length;
    reasoningTotal += reasoningTokens;
    choices.push({
      index,
      tokens,
      reasoningTokens,
      toolCalls: [],
      finishReason: tokens.length < all.length ? 'length' : 'stop',
      logprobs: wantLogprobs ? logprobsOf(tokens, typeof req.top_logprobs === 'number' ? req.top_logprobs : 0) : null,
    });
  }
  return {
    choices,
    citations: grounding.citations,
    usage: {
      prompt_tokens: model.promptTokens,
      completion_tokens: completionTokens,
      total_tokens: model.promptTokens + completionTokens,
      completion_tokens_details: reasoningTotal ? { reasoning_tokens: reasoningTotal } : null,
      ...(model.cachedPromptTokens ? { prompt_tokens_details: { cached_tokens: model.cachedPromptTokens } } : {}),
      ...(model.cacheWritePromptTokens ? { prompt_tokens_details: { cache_creation_input_tokens: model.cacheWritePromptTokens } } : {}),
    },
  };
}
