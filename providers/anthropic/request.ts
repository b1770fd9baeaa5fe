import type {
  Base64ImageSource,
  CacheControlEphemeral,
  ContentBlockParam,
  MessageCreateParams,
  MessageParam,
  TextBlockParam,
  ThinkingConfigParam,
  Tool,
  ToolChoice,
} from '@anthropic-ai/sdk/resources/messages';
import { clientIndexOf } from '../../src/stream/message-index';
import type { ChatMessage, ContentPart, UpstreamChatRequest } from '../../src/stream/wire';
import {
  functionToolsOf,
  imageOf,
  jsonSchemaOf,
  maxTokensOf,
  refuseSeveralChoices,
  stopOf,
  textOf,
  THINKING_BUDGET,
  thinkingOf,
  toolCallsOf,
  toolModeOf,
  unsupported,
} from '../translate/request';

/** The media types Anthropic takes inline. */
const IMAGE_TYPES = new Set<string>(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

/** A content part's `cache_control`, passed on where the caller put it (a TTL Anthropic does not know is dropped). */
function cacheControlOf(part: ContentPart): { cache_control?: CacheControlEphemeral } {
  const c = part.cache_control;
  if (c?.type !== 'ephemeral') return {};
  return { cache_control: c.ttl === '5m' || c.ttl === '1h' ? { type: 'ephemeral', ttl: c.ttl } : { type: 'ephemeral' } };
}

/** One content part of `messages[i]` as an Anthropic block. */
function blockOf(part: ContentPart, path: (string | number)[]): ContentBlockParam {
  if (part.type === 'text') return { type: 'text', text: part.text ?? '', ...cacheControlOf(part) };
  if (part.type === 'image_url') {
    const image = imageOf(part, path);
    if (image.kind === 'url') return { type: 'image', source: { type: 'url', url: image.url }, ...cacheControlOf(part) };
    if (!IMAGE_TYPES.has(image.mediaType)) throw unsupported([...path, 'image_url'], 'must be a JPEG, PNG, GIF or WebP image');
    const source: Base64ImageSource = { type: 'base64', media_type: image.mediaType as Base64ImageSource['media_type'], data: image.data };
    return { type: 'image', source, ...cacheControlOf(part) };
  }
  throw unsupported([...path, 'type'], `${part.type} content is not supported by this model's provider`);
}

/** A message's content as Anthropic blocks (a plain string stays a string). */
function contentOf(m: ChatMessage, i: number): string | ContentBlockParam[] {
  if (typeof m.content === 'string' || !m.content) return m.content ?? '';
  return m.content.map((part, j) => blockOf(part, ['messages', i, 'content', j]));
}

/** The system blocks: every system and developer message, in the order they came (svc's own prompt first when it put one there). */
function systemOf(messages: ChatMessage[]): TextBlockParam[] {
  const blocks: TextBlockParam[] = [];
  messages.forEach((m, at) => {
    const i = clientIndexOf(m, at);
    if (m.role !== 'system' && m.role !== 'developer') return;
    if (typeof m.content === 'string' || !m.content) blocks.push({ type: 'text', text: m.content ?? '' });
    else
      m.content.forEach((part, j) => {
        if (part.type !== 'text') throw unsupported(['messages', i, 'content', j, 'type'], 'a system message holds text only');
        blocks.push({ type: 'text', text: part.text ?? '', ...cacheControlOf(part) });
      });
  });
  return blocks.filter((b) => b.text.length > 0);
}

/**
 * The thinking blocks of an assistant message sent back with its `thinking_blocks` seals
 * (answer.ts): a thinking block's text is the seal's own `thinking` when given, else the
 * message's `reasoning_content` (one block per message, as svc answers).
 */
function thinkingBlocksOf(m: ChatMessage, i: number): ContentBlockParam[] {
  const seals = m.thinking_blocks;
  if (!Array.isArray(seals)) return [];
  return seals.map((raw, j) => {
    const seal = raw as { type?: unknown; signature?: unknown; thinking?: unknown; data?: unknown };
    if (seal.type === 'redacted_thinking' && typeof seal.data === 'string') return { type: 'redacted_thinking', data: seal.data };
    if (seal.type !== 'thinking' || typeof seal.signature !== 'string')
      throw unsupported(
        ['messages', i, 'thinking_blocks', j],
        'must be {type: "thinking", signature} or {type: "redacted_thinking", data}',
      );
    const thinking = typeof seal.thinking === 'string' ? seal.thinking : typeof m.reasoning_content === 'string' ? m.reasoning_content : '';
    return { type: 'thinking', thinking, signature: seal.signature };
  });
}

/** Appends `blocks` as a turn of `role`, merged into the previous turn when it has the same role. */
function pushTurn(turns: MessageParam[], role: 'user' | 'assistant', blocks: ContentBlockParam[]): void {
  if (blocks.length === 0) return;
  const last = turns[turns.length - 1];
  if (last && last.role === role && Array.isArray(last.content)) last.content.push(...blocks);
  else turns.push({ role, content: blocks });
}

/** The user and assistant turns: tool results become user turns, assistant tool calls `tool_use` blocks. */
function turnsOf(messages: ChatMessage[]): MessageParam[] {
  const turns: MessageParam[] = [];
  messages.forEach((m, at) => {
    const i = clientIndexOf(m, at);
    if (m.role === 'system' || m.role === 'developer') return;
    if (m.role === 'tool') {
      if (typeof m.tool_call_id !== 'string') throw unsupported(['messages', i, 'tool_call_id'], 'is required on a tool message');
      pushTurn(turns, 'user', [{ type: 'tool_result', tool_use_id: m.tool_call_id, content: textOf(m.content) }]);
      return;
    }
    const content = contentOf(m, i);
    const blocks: ContentBlockParam[] = typeof content === 'string' ? (content ? [{ type: 'text', text: content }] : []) : content;
    if (m.role === 'assistant') blocks.unshift(...thinkingBlocksOf(m, i));
    if (m.role === 'assistant')
      for (const call of toolCallsOf(m, i)) blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: call.args });
    pushTurn(turns, m.role, blocks);
  });
  return turns;
}

/** The request's tools and tool choice as Anthropic's. */
function toolsOf(req: UpstreamChatRequest): { tools?: Tool[]; tool_choice?: ToolChoice } {
  const tools: Tool[] = functionToolsOf(req).map((t) => ({
    name: t.name,
    ...(t.description ? { description: t.description } : {}),
    input_schema: { ...t.parameters, type: 'object' },
  }));
  const mode = toolModeOf(req);
  const serial = req.parallel_tool_calls === false ? { disable_parallel_tool_use: true } : {};
  let tool_choice: ToolChoice | undefined;
  if (mode?.mode === 'none') tool_choice = { type: 'none' };
  else if (mode?.mode === 'required') tool_choice = { type: 'any', ...serial };
  else if (mode?.mode === 'function') tool_choice = { type: 'tool', name: mode.name, ...serial };
  else if (tools.length > 0 && req.parallel_tool_calls === false) tool_choice = { type: 'auto', ...serial };
  return { ...(tools.length ? { tools } : {}), ...(tool_choice ? { tool_choice } : {}) };
}

/**
 * Thinking per the caller's effort: a budget below `max_tokens` (Anthropic requires it),
 * none when the limit leaves no room for the minimum budget, disabled when asked off.
 */
function thinkingConfigOf(req: UpstreamChatRequest, maxTokens: number): ThinkingConfigParam | undefined {
  const thinking = thinkingOf(req);
  if (thinking === null) return undefined;
  if (thinking === 'off') return { type: 'disabled' };
  const budget = Math.min(THINKING_BUDGET[thinking.effort], maxTokens - 1);
  return budget >= THINKING_BUDGET.minimal ? { type: 'enabled', budget_tokens: budget } : undefined;
}

/**
 * Sampling fields of the Messages API before version 2026-10-21, which the current SDK no
 * longer declares: sent only to an upstream configured with an older `anthropic-version`.
 */
export interface LegacySampling {
  temperature?: number;
  top_p?: number;
  top_k?: number;
}

/** The API version from which the Messages API has no sampling fields. */
const WITHOUT_SAMPLING = '2026-10-21';

/** Whether an `anthropic-version` (YYYY-MM-DD) still takes sampling fields. */
export const takesSampling = (version: string) => version < WITHOUT_SAMPLING;

/** The request's sampling fields for an older API version (none while thinking: Anthropic refuses them then). */
function samplingOf(req: UpstreamChatRequest, thinking: ThinkingConfigParam | undefined): LegacySampling {
  if (thinking?.type === 'enabled') return {};
  const out: LegacySampling = {};
  // Anthropic's temperature goes up to 1.
  if (typeof req.temperature === 'number') out.temperature = Math.min(1, req.temperature);
  if (typeof req.top_p === 'number') out.top_p = req.top_p;
  if (typeof req.top_k === 'number' && req.top_k > 0) out.top_k = req.top_k;
  return out;
}

/**
 * A chat-completions request as an Anthropic Messages request (its type is the official
 * SDK's, so every field svc sends is checked against it). System and developer messages
 * become `system` blocks, tool results user turns, `response_format` a JSON output format,
 * `reasoning_effort` a thinking budget; `cache_control` markers stay where the caller put them.
 * The API version the SDK speaks (2026-10-21) has no sampling fields: `temperature`, `top_p`
 * and `top_k` go only to an upstream on an older version (`sampling`).
 */
export function messagesRequest(
  req: UpstreamChatRequest,
  model: string,
  defaultMaxTokens: number,
  sampling = false,
): MessageCreateParams & LegacySampling {
  refuseSeveralChoices(req);
  const max_tokens = maxTokensOf(req, defaultMaxTokens);
  const system = systemOf(req.messages);
  const thinking = thinkingConfigOf(req, max_tokens);
  const json = jsonSchemaOf(req);
  const stop = stopOf(req);
  return {
    model,
    max_tokens,
    messages: turnsOf(req.messages),
    ...(system.length ? { system } : {}),
    ...toolsOf(req),
    ...(stop ? { stop_sequences: stop } : {}),
    ...(thinking ? { thinking } : {}),
    ...(json ? { output_config: { format: { type: 'json_schema', schema: json.schema ?? { type: 'object' } } } } : {}),
    ...(sampling ? samplingOf(req, thinking) : {}),
    ...(req.stream ? { stream: true } : {}),
  };
}
