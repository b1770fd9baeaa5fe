import type { ChatRequestBody } from '../chat/completions';
import { invalidField } from '../http/errors';
import { chatMessagesOf, type ChatMessages } from './input';
import type { ResponsesRequest, Tool } from './schema';

/** Whether a value is a JSON object (a JSON Schema must be one). */
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Refuses what svc does not keep: conversation objects (chain turns with `previous_response_id`). */
function refuseUnsupported(req: ResponsesRequest): void {
  if (req.conversation !== undefined && req.conversation !== null)
    throw invalidField(['conversation'], 'is not supported: chain turns with previous_response_id', 'body');
}

/** A function tool in the chat shape; a hosted `web_search` tool turns web search on instead (null). */
function chatTool(tool: Tool, i: number): Record<string, unknown> | null {
  if (tool.type === 'web_search' || tool.type === 'web_search_preview') return null;
  if (tool.type !== 'function')
    throw invalidField(['tools', i, 'type'], `"${tool.type}" is not supported; svc runs function tools and web_search`, 'body');
  if (tool.function !== undefined && !isObject(tool.function)) throw invalidField(['tools', i, 'function'], 'must be an object', 'body');
  const nested = tool.function !== undefined;
  const fn = (tool.function ?? tool) as { name?: unknown; description?: unknown; parameters?: unknown; strict?: unknown };
  const at = (field: string) => (nested ? ['tools', i, 'function', field] : ['tools', i, field]);
  if (typeof fn.name !== 'string' || fn.name === '') throw invalidField(at('name'), 'is required for a function tool', 'body');
  const out: Record<string, unknown> = { name: fn.name };
  if (typeof fn.description === 'string') out.description = fn.description;
  if (fn.parameters != null && !isObject(fn.parameters)) throw invalidField(at('parameters'), 'must be a JSON Schema object', 'body');
  if (fn.parameters) out.parameters = fn.parameters;
  if (typeof fn.strict === 'boolean') out.strict = fn.strict;
  return { type: 'function', function: out };
}

/** `tool_choice` in the chat shape: the strings as they are, a named function as `{type, function:{name}}`. */
function chatToolChoice(choice: ResponsesRequest['tool_choice']): unknown {
  if (choice === undefined || typeof choice === 'string') return choice;
  const name = choice.name ?? choice.function?.name;
  if (choice.type !== 'function' || !name)
    throw invalidField(['tool_choice'], 'must be auto, none, required or {type: "function", name}', 'body');
  return { type: 'function', function: { name } };
}

/** `text.format` as chat's `response_format`. */
function responseFormat(format: NonNullable<ResponsesRequest['text']>['format']): unknown {
  if (!format || format.type === 'text') return undefined;
  if (format.type === 'json_object') return { type: 'json_object' };
  const { name, description, schema, strict } = format;
  if (!isObject(schema)) throw invalidField(['text', 'format', 'schema'], 'must be a JSON Schema object', 'body');
  return {
    type: 'json_schema',
    json_schema: { name: name ?? 'response', schema, ...(description ? { description } : {}), ...(strict != null ? { strict } : {}) },
  };
}

/** `fallbacks` as model ids (the reference sends `{model}` objects, svc's chat takes ids). */
const fallbackIds = (fallbacks: ResponsesRequest['fallbacks']) => fallbacks?.map((f) => (typeof f === 'string' ? f : f.model));

/**
 * A Responses request as the chat-completions request the chat pipeline runs: messages from
 * `instructions` and `input`, function tools, `text.format` as `response_format`,
 * `max_output_tokens` as `max_completion_tokens`, `reasoning` as it is (and
 * `reasoning_effort`), `web_search` (or a web_search tool) as `svc_parameters.enable_web_search`,
 * `fallbacks` as ids; usage is always asked for (the response carries it). `input` here is
 * the whole conversation (the handler put the stored turns before it).
 */
export function toChatRequest(req: ResponsesRequest): { body: ChatRequestBody; partPath: ChatMessages['partPath'] } {
  refuseUnsupported(req);
  const { messages, partPath } = chatMessagesOf(req.instructions, req.input);
  const body: ChatRequestBody = { model: req.model, messages };
  const tools: Record<string, unknown>[] = [];
  let webSearch = req.web_search === true;
  req.tools?.forEach((tool, i) => {
    const chat = chatTool(tool, i);
    if (chat) tools.push(chat);
    else webSearch = true;
  });
  if (tools.length) {
    body.tools = tools;
    if (req.tool_choice !== undefined) body.tool_choice = chatToolChoice(req.tool_choice);
    if (req.parallel_tool_calls != null) body.parallel_tool_calls = req.parallel_tool_calls;
  }
  const format = responseFormat(req.text?.format);
  if (format) body.response_format = format;
  if (req.text?.verbosity) body.verbosity = req.text.verbosity;
  if (req.max_output_tokens != null) body.max_completion_tokens = req.max_output_tokens;
  if (req.temperature != null) body.temperature = req.temperature;
  if (req.top_p != null) body.top_p = req.top_p;
  if (req.reasoning) {
    const { effort, summary } = req.reasoning;
    body.reasoning = { ...(effort ? { effort } : {}), ...(summary ? { summary } : {}) };
    if (effort) body.reasoning_effort = effort;
  }
  if (req.prompt_cache_key) body.prompt_cache_key = req.prompt_cache_key;
  const fallbacks = fallbackIds(req.fallbacks);
  if (fallbacks?.length) body.fallbacks = fallbacks;
  const svc = { ...(req.svc_parameters as Record<string, unknown> | undefined) };
  // An explicit svc_parameters.enable_web_search wins over the web_search switch.
  if (webSearch && svc.enable_web_search === undefined) svc.enable_web_search = 'on';
  if (Object.keys(svc).length) body.svc_parameters = svc;
  if (req.stream === true) {
    body.stream = true;
    body.stream_options = { include_usage: true };
  }
  return { body, partPath };
}
