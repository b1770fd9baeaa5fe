import { invalidField } from '../../src/http/errors';
import type { ChatMessage, ContentPart, UpstreamChatRequest } from '../../src/stream/wire';

/**
 * What the native adapters read of a chat-completions request, shared so that both read
 * it the same way: text, images, tool calls and tools, the token limit, stop sequences,
 * thinking. The request was validated by the route's schema; the loose parts (tool calls,
 * tools) are checked here, and a 400 names the field that a provider cannot take.
 */

/** A 400 naming the field of the request that this provider cannot take. */
export const unsupported = (path: (string | number)[], reason: string) => invalidField(path, reason);

/** The text of a message's content: the string, or its text parts joined (other parts are read by the caller). */
export function textOf(content: ChatMessage['content']): string {
  if (typeof content === 'string') return content;
  if (!content) return '';
  let text = '';
  for (const part of content) if (part.type === 'text' && typeof part.text === 'string') text += part.text;
  return text;
}

/** An image part's address: inline bytes (a base64 data URL) or a URL the provider fetches itself. */
export type ImageSource = { kind: 'base64'; mediaType: string; data: string } | { kind: 'url'; url: string };

const DATA_URL = /^data:([\w.+-]+\/[\w.+-]+)(?:;[^,;]*)*;base64,/;

/** The image of an `image_url` part (a string or `{ url }`), or a 400 naming it. */
export function imageOf(part: ContentPart, path: (string | number)[]): ImageSource {
  const value = part.image_url as string | { url?: unknown } | undefined;
  const url = typeof value === 'string' ? value : value?.url;
  if (typeof url !== 'string' || url.length === 0) throw unsupported([...path, 'image_url'], 'must be a URL or a data URL');
  const data = DATA_URL.exec(url);
  if (data) return { kind: 'base64', mediaType: (data[1] as string).toLowerCase(), data: url.slice(data[0].length) };
  if (!/^https?:\/\//i.test(url)) throw unsupported([...path, 'image_url'], 'must be an http(s) URL or a base64 data URL');
  return { kind: 'url', url };
}

/** A tool call of an assistant message, its arguments parsed. */
export interface ToolCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
}

/** The tool calls of an assistant message (`messages[i].tool_calls`), or a 400 naming a broken one. */
export function toolCallsOf(message: ChatMessage, i: number): ToolCall[] {
  const calls = message.tool_calls;
  if (!Array.isArray(calls)) return [];
  return calls.map((raw, j) => {
    const path = ['messages', i, 'tool_calls', j];
    const call = raw as { id?: unknown; function?: { name?: unknown; arguments?: unknown } } | null;
    const fn = call?.function;
    if (typeof call?.id !== 'string' || typeof fn?.name !== 'string') throw unsupported(path, 'must have an id and a function name');
    let args: unknown = {};
    if (typeof fn.arguments === 'string' && fn.arguments.trim() !== '') {
      try {
        args = JSON.parse(fn.arguments);
      } catch {
        throw unsupported([...path, 'function', 'arguments'], 'must be a JSON object');
      }
    } else if (fn.arguments && typeof fn.arguments === 'object') args = fn.arguments;
    if (!args || typeof args !== 'object' || Array.isArray(args))
      throw unsupported([...path, 'function', 'arguments'], 'must be a JSON object');
    return { id: call.id, name: fn.name, args: args as Record<string, unknown> };
  });
}

/** A function tool the caller declared. */
export interface FunctionTool {
  name: string;
  description?: string;
  parameters: Record<string, unknown>;
}

/** The function tools of the request (`tools`), or a 400 naming one that is not a function. */
export function functionToolsOf(req: UpstreamChatRequest): FunctionTool[] {
  const tools = req.tools;
  if (!Array.isArray(tools)) return [];
  return tools.map((raw, i) => {
    const tool = raw as { type?: unknown; function?: { name?: unknown; description?: unknown; parameters?: unknown } };
    const fn = tool.function;
    if (tool.type !== 'function' || typeof fn?.name !== 'string') throw unsupported(['tools', i], 'must be a function tool with a name');
    const parameters = fn.parameters && typeof fn.parameters === 'object' ? (fn.parameters as Record<string, unknown>) : { type: 'object' };
    return { name: fn.name, ...(typeof fn.description === 'string' ? { description: fn.description } : {}), parameters };
  });
}

/** How the caller wants tools used: `auto`, `none`, `required`, or one named function. */
export type ToolMode = { mode: 'auto' | 'none' | 'required' } | { mode: 'function'; name: string };

/** The request's `tool_choice`, or null when absent; a 400 when unreadable. */
export function toolModeOf(req: UpstreamChatRequest): ToolMode | null {
  const choice = req.tool_choice as unknown;
  if (choice === undefined || choice === null) return null;
  if (choice === 'auto' || choice === 'none' || choice === 'required') return { mode: choice };
  const name = (choice as { function?: { name?: unknown } }).function?.name;
  if (typeof name === 'string') return { mode: 'function', name };
  throw unsupported(['tool_choice'], 'must be auto, none, required or {type: "function", function: {name}}');
}

/** The completion token limit of the request (`max_completion_tokens`, else `max_tokens`), or `fallback`. */
export function maxTokensOf(req: UpstreamChatRequest, fallback: number): number {
  return req.max_completion_tokens ?? req.max_tokens ?? fallback;
}

/** The stop sequences of the request (`stop`, a string or a list). */
export function stopOf(req: UpstreamChatRequest): string[] | undefined {
  const stop = req.stop as unknown;
  if (typeof stop === 'string') return [stop];
  return Array.isArray(stop) && stop.length > 0 ? (stop as string[]) : undefined;
}

/** What the caller asked of the model's thinking: an effort, off, or nothing said. */
export type Thinking = { effort: 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max' } | 'off' | null;

/**
 * The request's thinking: `reasoning_effort` (or `reasoning.effort`), with `none` and the
 * disable_thinking plugin's `chat_template_kwargs.enable_thinking: false` meaning off.
 */
export function thinkingOf(req: UpstreamChatRequest): Thinking {
  const kwargs = req.chat_template_kwargs as { enable_thinking?: unknown } | undefined;
  if (kwargs?.enable_thinking === false) return 'off';
  const effort = (req.reasoning_effort ?? (req.reasoning as { effort?: unknown } | undefined)?.effort) as unknown;
  if (effort === 'none') return 'off';
  if (typeof effort === 'string' && ['minimal', 'low', 'medium', 'high', 'xhigh', 'max'].includes(effort))
    return { effort: effort as Exclude<Thinking, 'off' | null>['effort'] };
  return null;
}

/** Thinking tokens allowed per effort (Anthropic's minimum budget is 1,024). */
export const THINKING_BUDGET = { minimal: 1024, low: 2048, medium: 8192, high: 16_384, xhigh: 32_768, max: 65_536 } as const;

/** The JSON answer the caller wants (`response_format`): its schema, null for any JSON object (json_object); null for text. */
export function jsonSchemaOf(req: UpstreamChatRequest): { schema: Record<string, unknown> | null } | null {
  const format = req.response_format as { type?: unknown; json_schema?: { name?: unknown; schema?: unknown } } | undefined;
  if (!format || format.type === 'text' || format.type === undefined) return null;
  if (format.type === 'json_object') return { schema: null };
  if (format.type !== 'json_schema') throw unsupported(['response_format', 'type'], 'must be text, json_object or json_schema');
  const schema = format.json_schema?.schema;
  if (!schema || typeof schema !== 'object')
    throw unsupported(['response_format', 'json_schema', 'schema'], 'must be a JSON schema object');
  return { schema: schema as Record<string, unknown> };
}

/** Refuses `n` above 1, which these providers cannot answer in one call. */
export function refuseSeveralChoices(req: UpstreamChatRequest): void {
  if (typeof req.n === 'number' && req.n > 1) throw unsupported(['n'], "must be 1 with this model's provider");
}
