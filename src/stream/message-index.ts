import type { ChatMessage } from './wire';

// Keyed by the message objects themselves: plugins may insert messages (svc's system prompt,
// a character's) or edit them in place, and the client's index must survive both.
const clientIndexes = new WeakMap<ChatMessage, number>();

/** Remembers the position of each message in the client's request, before the plugins run. */
export function rememberClientIndexes(messages: readonly ChatMessage[]): void {
  for (let i = 0; i < messages.length; i++) clientIndexes.set(messages[i] as ChatMessage, i);
}

/**
 * The index of `message` in the client's request, for a 400 that names the client's field
 * when a provider refuses a message that plugins may have moved; `fallback` (its upstream
 * index) for a message a plugin added.
 */
export function clientIndexOf(message: ChatMessage, fallback: number): number {
  return clientIndexes.get(message) ?? fallback;
}
