import type { ChatMessage, ContentPart, UpstreamChatRequest } from '../../src/stream/wire';

/** The text of a message: its string content, or its text parts joined by newlines. */
export function messageText(message: ChatMessage | undefined): string {
  if (!message) return '';
  const { content } = message;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  let out = '';
  for (const part of content) if (part.type === 'text' && typeof part.text === 'string') out += (out ? '\n' : '') + part.text;
  return out;
}

/** The text of the last user message: what search and scraping act on. */
export function lastUserText(req: UpstreamChatRequest): string {
  for (let i = req.messages.length - 1; i >= 0; i--) if (req.messages[i]?.role === 'user') return messageText(req.messages[i]);
  return '';
}

/**
 * Puts `text` at the very start of the system prompt. The result stays ONE leading system
 * message because several chat templates (Qwen, Llama) reject or mangle a second system
 * message. Plugins call this in reverse order of how the prompt should read, so the plugin
 * list runs context plugins first and the service default last (it ends up first).
 */
export function prependSystemText(req: UpstreamChatRequest, text: string): void {
  if (!text) return;
  const first = req.messages[0];
  if (first && (first.role === 'system' || first.role === 'developer')) {
    if (typeof first.content === 'string' && first.content !== '') first.content = `${text}\n\n${first.content}`;
    else if (Array.isArray(first.content)) first.content = [{ type: 'text', text } as ContentPart, ...first.content];
    else first.content = text;
    return;
  }
  req.messages.unshift({ role: 'system', content: text });
}
