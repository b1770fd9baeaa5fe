import { chatPromptTokens } from '../../src/pipeline/tokens';
import type { ChatMessage, UpstreamChatRequest } from '../../src/stream/wire';
import { seedOf } from './sample';

/** How long a simulated cache entry lives, and how many there are at most (oldest dropped first). */
const TTL_MS = 5 * 60_000;
const MAX_ENTRIES = 10_000;

/** The leading system/developer messages of a request: the part a provider caches automatically. */
const systemPrefix = (messages: ChatMessage[]) => {
  const end = messages.findIndex((m) => m.role !== 'system' && m.role !== 'developer');
  return end < 0 ? messages : messages.slice(0, end);
};

/** Whether a message carries a `cache_control` marker on one of its parts (explicit caching, as Anthropic's). */
const marked = (m: ChatMessage) => Array.isArray(m.content) && m.content.some((p) => p.cache_control !== undefined);

/**
 * The simulator's prompt cache, for models that declare supportsPromptCaching: like the
 * automatic caching of real providers, a request whose leading system messages match those
 * of a request to the same model within 5 minutes reports their tokens as
 * `prompt_tokens_details.cached_tokens` (billed at the model's cache price). A miss whose
 * leading messages carry a `cache_control` marker reports them written to the cache
 * (`cache_creation_input_tokens`, billed at the cache-write price), as explicit caching does.
 */
export function createPromptCache(now: () => number = Date.now) {
  const expiries = new Map<string, number>();
  return {
    /** The prompt tokens of `req` read from the cache and written to it, remembering its prefix for the next request. */
    lookup(model: string, req: UpstreamChatRequest): { read: number; written: number } {
      const prefix = systemPrefix(req.messages);
      if (prefix.length === 0) return { read: 0, written: 0 };
      const key = `${model}\u0000${seedOf(JSON.stringify(prefix))}`;
      const at = now();
      const hit = (expiries.get(key) ?? 0) > at;
      expiries.delete(key);
      expiries.set(key, at + TTL_MS);
      if (expiries.size > MAX_ENTRIES) expiries.delete(expiries.keys().next().value!);
      const tokens = Math.min(chatPromptTokens(prefix), chatPromptTokens(req.messages));
      if (hit) return { read: tokens, written: 0 };
      return { read: 0, written: prefix.some(marked) ? tokens : 0 };
    },
  };
}
