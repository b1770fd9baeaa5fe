import type { ExtraCharge, MeteredUsage, SettledCost } from '../billing/meter';
import { microsToNumber } from '../billing/money';
import type { ChatUsage } from '../stream/wire';

/** The response's `cost` block from a settlement (micro-units to JSON numbers). */
export const cost = (settled: SettledCost) => ({ usd: microsToNumber(settled.usdMicros), diem: microsToNumber(settled.diemMicros) });

/** Longest ledger note kept, in characters: notes are short by contract, and a row is not a log. */
export const MAX_NOTES = 500;

/** The plugins' notes as the ledger row's text (`cache: HIT; guardrails: pii=redact`), or undefined when there are none. */
export function notesText(notes: Record<string, string>): string | undefined {
  let out = '';
  for (const key in notes) out += `${out ? '; ' : ''}${key}: ${notes[key]}`;
  return out === '' ? undefined : out.length > MAX_NOTES ? `${out.slice(0, MAX_NOTES - 3)}...` : out;
}

/** What the meter settles for a chat: tokens, prompt tokens read from and written to the cache, plugin extras, time since `startedAt`, notes. */
export function metered(usage: ChatUsage, extras: ExtraCharge[], startedAt: number, notes?: Record<string, string>): MeteredUsage {
  return {
    notes: notes && notesText(notes),
    promptTokens: usage.prompt_tokens,
    completionTokens: usage.completion_tokens,
    cachedPromptTokens: usage.prompt_tokens_details?.cached_tokens ?? 0,
    cacheWritePromptTokens: usage.prompt_tokens_details?.cache_creation_input_tokens ?? 0,
    extras,
    executionMs: Math.round(performance.now() - startedAt),
  };
}
