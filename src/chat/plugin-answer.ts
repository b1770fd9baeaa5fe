import { completionToChunks, type ChatCompletion } from '@svc/plugin-sdk';
import type { MeteredUsage } from '../billing/meter';
import { eventText } from '../stream/encoder';
import type { Routed } from '../../providers/router';
import type { ProviderChatResult } from '../../providers/types';
import type { RespondedAnswer } from '../pipeline/plugin-runner';
import type { PluginCharge } from '@svc/plugin-sdk';
import { notesText } from './settle';

const DONE = 'data: [DONE]\n\n';

/**
 * A plugin's answer in place of a routed upstream result: the completion itself (JSON), or
 * replayed as the SSE an upstream would send (`completionToChunks`, then `[DONE]`), so the
 * response side (transforms, usage chunk, settlement) treats it as any upstream's answer.
 */
export function answerAsRouted(responded: RespondedAnswer, stream: boolean, model: string): Routed<ProviderChatResult> {
  // Copied: the plugin may hand the same object to many requests (a cache), and the response side completes it in place.
  const completion: ChatCompletion = { ...responded.answer.completion, model };
  const result: ProviderChatResult = stream
    ? { kind: 'stream', body: new Response(completionToChunks(completion).map(eventText).join('') + DONE).body! }
    : { kind: 'json', body: completion };
  return { result, replica: `plugin:${responded.plugin}`, done() {} };
}

/** What the meter settles for a plugin's answer: its charges (and the plugins' extras), no token rows. */
export function answerMetered(
  charges: PluginCharge[] | undefined,
  extras: PluginCharge[],
  startedAt: number,
  notes?: Record<string, string>,
): MeteredUsage {
  return {
    notes: notes && notesText(notes),
    promptTokens: 0,
    completionTokens: 0,
    extras: charges?.length ? [...charges, ...extras] : extras,
    extrasOnly: true,
    executionMs: Math.round(performance.now() - startedAt),
  };
}
