import type { ChatMessage, UpstreamChatRequest } from '../../src/stream/wire';
import { contentText } from '../../src/pipeline/tokens';
import { sampleOf, seedOf, type JsonSchema } from './sample';

/** A function tool as the chat-completions interface offers it. */
export interface FunctionTool {
  name: string;
  description?: string;
  parameters?: JsonSchema;
}

/** A tool call of an assistant message, in the chat-completions shape. */
export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** The function tools of a request (`tools[].type === 'function'`), malformed entries skipped. */
export function functionTools(req: UpstreamChatRequest): FunctionTool[] {
  if (!Array.isArray(req.tools)) return [];
  const out: FunctionTool[] = [];
  for (const tool of req.tools as { type?: unknown; function?: Record<string, unknown> }[]) {
    const fn = tool?.function;
    if (tool?.type !== 'function' || !fn || typeof fn.name !== 'string' || !fn.name) continue;
    out.push({
      name: fn.name,
      description: typeof fn.description === 'string' ? fn.description : undefined,
      parameters: (fn.parameters as JsonSchema | undefined) ?? { type: 'object', properties: {} },
    });
  }
  return out;
}

const words = (text: string) => new Set(text.toLowerCase().match(/[a-z0-9]{3,}/g) ?? []);

/** Most tools called at once when `parallel_tool_calls` allows several. */
export const MAX_PARALLEL_CALLS = 4;

/** The tools whose name or description share words with the message, best first; the first tool when none does. */
function matchingTools(tools: FunctionTool[], said: string): FunctionTool[] {
  const asked = words(said);
  const scored = tools.map((tool, i) => {
    const mine = [...words(`${tool.name.replace(/[_-]+/g, ' ')} ${tool.description ?? ''}`)];
    return { tool, i, score: mine.filter((w) => asked.has(w)).length };
  });
  const hits = scored.filter((s) => s.score > 0).sort((a, b) => b.score - a.score || a.i - b.i);
  return hits.length ? hits.map((s) => s.tool) : [tools[0]!];
}

/**
 * The tools the simulated model calls, none for a text answer. `tool_choice` is honoured:
 * `none` never calls, `required` always calls, `{type:'function', function:{name}}` calls
 * that tool. Under `auto` (the default) the model calls when the conversation ends with the
 * user speaking, and answers in text once the last message is a tool result, so a client's
 * tool loop (openai `runTools`, LangChain agents, the AI SDK's steps) ends. Every tool the
 * message matches is called at once (at most MAX_PARALLEL_CALLS) unless
 * `parallel_tool_calls: false`.
 */
export function chosenTools(req: UpstreamChatRequest, tools: FunctionTool[], said: string): FunctionTool[] {
  if (tools.length === 0) return [];
  const choice = req.tool_choice as string | { type?: string; function?: { name?: string } } | undefined | null;
  if (choice === 'none') return [];
  if (typeof choice === 'object' && choice?.function?.name) return tools.filter((t) => t.name === choice.function!.name).slice(0, 1);
  if (choice !== 'required' && req.messages.at(-1)?.role !== 'user') return [];
  return matchingTools(tools, said).slice(0, req.parallel_tool_calls === false ? 1 : MAX_PARALLEL_CALLS);
}

/** Capitalised words of the message after its first word: the names a user asks about ("Lisbon"). */
const namesIn = (said: string) => (said.match(/\p{Lu}[\p{L}-]+/gu) ?? []).filter((w, i) => i > 0 || !said.startsWith(w));

/**
 * Puts the first name of the user's message into the first plain string parameter (no
 * enum, const, format or pattern, and the name fits its length bounds), so a call reads
 * like an answer to the message: `get_weather({"city":"Lisbon"})`. Other values stay sampled.
 */
function withNameFromMessage(args: unknown, schema: FunctionTool['parameters'], said: string): unknown {
  const name = namesIn(said)[0];
  const props = typeof schema === 'object' ? (schema.properties as Record<string, Record<string, unknown>> | undefined) : undefined;
  if (!name || !props || !args || typeof args !== 'object' || Array.isArray(args)) return args;
  for (const [key, p] of Object.entries(props)) {
    const plain = p?.type === 'string' && !p.enum && p.const === undefined && !p.format && !p.pattern;
    const fits = name.length >= Number(p?.minLength ?? 0) && name.length <= Number(p?.maxLength ?? Infinity);
    if (plain && fits && key in args) return { ...args, [key]: name };
  }
  return args;
}

/** A call of `tool` with arguments sampled from its parameter schema; `seed` keeps it repeatable. */
export function toolCallOf(tool: FunctionTool, seed: number, said = ''): ToolCall {
  const args = withNameFromMessage(sampleOf(tool.parameters, seed), tool.parameters, said);
  return {
    id: `call_sim_${seed.toString(36)}${seedOf(tool.name).toString(36)}`.slice(0, 24),
    type: 'function',
    function: { name: tool.name, arguments: JSON.stringify(args ?? {}) },
  };
}

/**
 * The tool results the conversation ends with, as "name returned text" lines (the name
 * found through the assistant message that made the call), or null when it does not end
 * with tool results.
 */
export function trailingToolResults(messages: ChatMessage[]): string | null {
  const results: ChatMessage[] = [];
  for (let i = messages.length - 1; i >= 0 && messages[i]!.role === 'tool'; i--) results.unshift(messages[i]!);
  if (results.length === 0) return null;
  const names = new Map<string, string>();
  for (const m of messages)
    if (m.role === 'assistant' && Array.isArray(m.tool_calls))
      for (const call of m.tool_calls as Partial<ToolCall>[]) if (call.id && call.function?.name) names.set(call.id, call.function.name);
  return results
    .map((m) => {
      const name = names.get(String(m.tool_call_id)) ?? 'the tool';
      return `${name} returned ${contentText(m.content).replace(/\s+/g, ' ').trim().slice(0, 300)}`;
    })
    .join('; ');
}
