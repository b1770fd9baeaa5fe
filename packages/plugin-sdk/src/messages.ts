import type { ChatCompletion, ChatMessage, ChatRequest, ContentPart } from './wire.js';

/** The text of a message: its string content, or its text parts joined by newlines ('' for none). */
export function messageText(message: ChatMessage | undefined): string {
  if (!message) return '';
  const { content } = message;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  let out = '';
  for (const part of content) if (part.type === 'text' && typeof part.text === 'string') out += (out ? '\n' : '') + part.text;
  return out;
}

/** The last user message of a request, or undefined when it has none. */
export function lastUserMessage(req: ChatRequest): ChatMessage | undefined {
  for (let i = req.messages.length - 1; i >= 0; i--) if (req.messages[i]?.role === 'user') return req.messages[i];
  return undefined;
}

/** The text of the last user message ('' when there is none). */
export function lastUserText(req: ChatRequest): string {
  return messageText(lastUserMessage(req));
}

/**
 * Replaces the text of the last user message, keeping its other parts (images, audio): a
 * string content becomes `text`; in a list of parts the text parts become one, where the
 * first one was. Returns false when the request has no user message.
 */
export function replaceLastUserText(req: ChatRequest, text: string): boolean {
  const message = lastUserMessage(req);
  if (!message) return false;
  if (!Array.isArray(message.content)) {
    message.content = text;
    return true;
  }
  const parts: ContentPart[] = [];
  let placed = false;
  for (const part of message.content) {
    if (part.type !== 'text') parts.push(part);
    else if (!placed) {
      parts.push({ ...part, text });
      placed = true;
    }
  }
  if (!placed) parts.unshift({ type: 'text', text });
  message.content = parts;
  return true;
}

/** The leading system (or developer) message, if the request has one. */
function leadingSystem(req: ChatRequest): ChatMessage | undefined {
  const first = req.messages[0];
  return first && (first.role === 'system' || first.role === 'developer') ? first : undefined;
}

/**
 * Puts `text` at the very start of the system prompt. The result stays ONE leading system
 * message because several chat templates (Qwen, Llama) reject or mangle a second system
 * message. Plugins that prepend run in reverse order of how the prompt should read.
 */
export function prependSystemText(req: ChatRequest, text: string): void {
  if (!text) return;
  const first = leadingSystem(req);
  if (!first) return void req.messages.unshift({ role: 'system', content: text });
  if (typeof first.content === 'string' && first.content !== '') first.content = `${text}\n\n${first.content}`;
  else if (Array.isArray(first.content)) first.content = [{ type: 'text', text }, ...first.content];
  else first.content = text;
}

/** Puts `text` at the end of the system prompt, in the one leading system message (created when absent). */
export function appendSystemText(req: ChatRequest, text: string): void {
  if (!text) return;
  const first = leadingSystem(req);
  if (!first) return void req.messages.unshift({ role: 'system', content: text });
  if (typeof first.content === 'string' && first.content !== '') first.content = `${first.content}\n\n${text}`;
  else if (Array.isArray(first.content)) first.content = [...first.content, { type: 'text', text }];
  else first.content = text;
}

/** The text of a completion's first choice ('' when it has none). */
export function completionText(completion: ChatCompletion): string {
  const content = completion.choices[0]?.message.content;
  return typeof content === 'string' ? content : '';
}
