import type { ExtraCharge, MeteredUsage, SettledCost } from '../billing/meter';
import { microsToNumber } from '../billing/money';
import type { ChatUsage } from '../stream/wire';

/** The response's `cost` block from a settlement (micro-units to JSON numbers). */
export const cost = (settled: SettledCost) => ({ usd: microsToNumber(settled.usdMicros), diem: microsToNumber(settled.diemMicros) });

/** What the meter settles for a chat: tokens, prompt tokens read from and written to the cache, plugin extras, time since `startedAt`. */
export function metered(usage: ChatUsage, extras: ExtraCharge[], startedAt: number): MeteredUsage {
  return {
    promptTokens: usage.prompt_tokens,
    completionTokens: usage.completion_tokens,
    cachedPromptTokens: usage.prompt_tokens_details?.cached_tokens ?? 0,
    cacheWritePromptTokens: usage.prompt_tokens_details?.cache_creation_input_tokens ?? 0,
    extras,
    executionMs: Math.round(performance.now() - startedAt),
  };
}
