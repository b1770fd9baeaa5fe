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

/**
 * The simulator's prompt cache, for models that declare supportsPromptCaching: like the
 * automatic caching of real providers, a request whose leading system messages match those
 * of a request to the same model within 5 minutes reports their tokens as
 * `prompt_tokens_details.cached_tokens` (billed at the model's cache price).
 */
export function createPromptCache(now: () => number = Date.now) {
  const expiries = new Map<string, number>();
  return {
    /** The cached prompt tokens of `req` (0 on a miss), remembering its prefix for the next request. */
    cachedTokens(model: string, req: UpstreamChatRequest): number {
      const prefix = systemPrefix(req.messages);
      if (prefix.length === 0) return 0;
      const key = `${model}\u0000${seedOf(JSON.stringify(prefix))}`;
      const at = now();
      const hit = (expiries.get(key) ?? 0) > at;
      expiries.delete(key);
      expiries.set(key, at + TTL_MS);
      if (expiries.size > MAX_ENTRIES) expiries.delete(expiries.keys().next().value!);
      return hit ? Math.min(chatPromptTokens(prefix), chatPromptTokens(req.messages)) : 0;
    },
  };
}
