import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { invalidField, invalidFields } from '../http/errors';
import { describeIssue, issuePath, resolveIssue } from '../http/validation-message';
import type { ChatMessage, ContentPart } from '../stream/wire';
import { ITEM_SCHEMAS, type FunctionCallItem, type InputPart, type MessageItem, type ReasoningItem } from './schema';

type ItemType = keyof typeof ITEM_SCHEMAS;
const ITEM_TYPES = Object.keys(ITEM_SCHEMAS).join(', ');
// Compiled once: every item is checked by the route (before Elysia copies the body) and again
// where it is converted, so a valid item costs a compiled check, not TypeBox's generic walk.
const ITEM_CHECKS = Object.fromEntries(Object.entries(ITEM_SCHEMAS).map(([type, schema]) => [type, TypeCompiler.Compile(schema)])) as {
  [T in ItemType]: TypeCheck<(typeof ITEM_SCHEMAS)[T]>;
};

/** The chat messages of a Responses request, and where each content part came from in `input`. */
export interface ChatMessages {
  messages: ChatMessage[];
  /** The `input` path of message `message`'s content part `part` (for a 400 about it). */
  partPath(message: number, part: number): (string | number)[];
}

/** A tool call of an assistant message in the chat-completions shape. */
interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** Checks one input item against its type's schema; a 400 naming `input.<i>.<field>` otherwise. */
export function checkedItem(raw: Record<string, unknown>, i: number): { type: ItemType; item: Record<string, unknown> } {
  const type = (raw.type ?? 'message') as string;
  if (!(type in ITEM_SCHEMAS)) throw invalidField(['input', i, 'type'], `must be one of: ${ITEM_TYPES}`, 'body');
  const check = ITEM_CHECKS[type as ItemType];
  const first = check.Check(raw) ? undefined : check.Errors(raw).First();
  if (first) {
    const issue = resolveIssue(first);
    throw invalidFields([{ path: ['input', i, ...issuePath(issue)], message: describeIssue(issue) }], 'body');
  }
  return { type: type as ItemType, item: raw };
}

/** One content part of an input message as a chat content part. */
function chatPart(part: InputPart, path: (string | number)[]): ContentPart {
  switch (part.type) {
    case 'input_text':
    case 'output_text':
    case 'text':
      if (typeof part.text !== 'string') throw invalidField([...path, 'text'], 'is required', 'body');
      return { type: 'text', text: part.text };
    case 'refusal':
      return { type: 'text', text: part.refusal ?? '' };
    case 'input_image':
    case 'image_url': {
      const image = part.image_url;
      const url = typeof image === 'string' ? image : image?.url;
      if (!url) {
        const why = part.file_id ? 'file_id is not supported (svc stores no files): send image_url as a URL or data URL' : 'is required';
        throw invalidField([...path, 'image_url'], why, 'body');
      }
      const detail = typeof image === 'object' ? image.detail : part.detail;
      return { type: 'image_url', image_url: detail ? { url, detail } : { url } };
    }
    case 'input_file': {
      if (part.file_data)
        return { type: 'file', file: { file_data: part.file_data, ...(part.filename ? { filename: part.filename } : {}) } };
      if (part.file_url) return { type: 'file', file: { file_url: part.file_url, ...(part.filename ? { filename: part.filename } : {}) } };
      throw invalidField([...path, 'file_data'], 'is required (file_id is not supported: svc stores no files)', 'body');
    }
  }
}

/** A message item as a chat message: assistant history as a string, others as parts. */
function chatMessage(item: MessageItem, i: number): ChatMessage {
  const role = item.role;
  if (typeof item.content === 'string') return { role, content: item.content };
  const parts = item.content.map((p, j) => chatPart(p, ['input', i, 'content', j]));
  // Chat upstreams take assistant (and system) content as text; parts there are text anyway.
  if (role !== 'user') return { role, content: parts.map((p) => (typeof p.text === 'string' ? p.text : '')).join('') };
  return { role, content: parts };
}

/** The text of a reasoning item's summary (strings or `{type:'summary_text', text}` parts). */
function reasoningText(item: ReasoningItem): string {
  return (item.summary ?? []).map((s) => (typeof s === 'string' ? s : s.text)).join('\n\n');
}

/** A function call output as the tool message's text (JSON for anything but a string). */
function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) {
    // Responses output parts ({type:'input_text', text}) read as their text.
    const texts = output.map((p) =>
      p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : null,
    );
    if (texts.every((t) => t !== null)) return texts.join('');
  }
  return JSON.stringify(output ?? null);
}

/**
 * `instructions` and `input` as chat messages. Function calls join the assistant message
 * before them (or open one), so a round trip reads as chat's assistant `tool_calls` then
 * `tool` messages; a reasoning item's summary becomes the next assistant message's
 * `reasoning_content`. `item_reference` items were resolved to their stored items before
 * (conversation.ts); none is left here.
 */
export function chatMessagesOf(instructions: string | null | undefined, input: string | Record<string, unknown>[]): ChatMessages {
  const messages: ChatMessage[] = [];
  // The input item each chat message came from (-1: instructions), for errors about its parts.
  const origins: number[] = [];
  const partPath = (message: number, part: number) => ['input', origins[message] ?? 0, 'content', part, 'type'];
  if (instructions) {
    messages.push({ role: 'system', content: instructions });
    origins.push(-1);
  }
  if (typeof input === 'string') {
    messages.push({ role: 'user', content: input });
    return { messages, partPath };
  }
  let reasoning: string | null = null;
  const assistant = (): ChatMessage => {
    const last = messages.at(-1);
    if (last?.role === 'assistant') return last;
    const opened: ChatMessage = { role: 'assistant', content: null };
    messages.push(opened);
    return opened;
  };
  input.forEach((raw, i) => {
    const { type, item } = checkedItem(raw, i);
    if (type === 'message') {
      const message = chatMessage(item as MessageItem, i);
      if (message.role === 'assistant' && reasoning) message.reasoning_content = reasoning;
      if (message.role === 'assistant' || message.role === 'user') reasoning = null;
      messages.push(message);
    } else if (type === 'function_call') {
      const call = item as FunctionCallItem;
      const target = assistant();
      if (reasoning && target.reasoning_content === undefined) target.reasoning_content = reasoning;
      reasoning = null;
      const calls = (target.tool_calls ??= []) as ChatToolCall[];
      calls.push({ id: call.call_id, type: 'function', function: { name: call.name, arguments: call.arguments } });
    } else if (type === 'function_call_output') {
      messages.push({ role: 'tool', tool_call_id: item.call_id as string, content: outputText(item.output) });
    } else if (type === 'reasoning') {
      const text = reasoningText(item as ReasoningItem);
      if (text) reasoning = reasoning ? `${reasoning}\n\n${text}` : text;
    }
    while (origins.length < messages.length) origins.push(i);
  });
  if (!messages.some((m) => m.role !== 'system' && m.role !== 'developer'))
    throw invalidField(['input'], 'must hold at least one message or function call output', 'body');
  return { messages, partPath };
}
