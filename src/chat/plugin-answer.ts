import { completionToChunks, type ChatCompletion } from '@svc/plugin-sdk';
import type { MeteredUsage } from '../billing/meter';
import { eventText, utf8 } from '../stream/encoder';
import type { Routed } from '../../providers/router';
import type { ProviderChatResult } from '../../providers/types';
import type { RespondedAnswer } from '../pipeline/plugin-runner';
import type { PluginAnswer, PluginCharge } from '@svc/plugin-sdk';
import { notesText } from './settle';

const DONE = 'data: [DONE]\n\n';

/** The SSE replay of one answered completion under one model name. */
interface Replay {
  model: string;
  bytes: Uint8Array<ArrayBuffer>;
}

// A plugin that hands the same completion object to many requests (the cache, for the life of
// its decoded entry) gets its stream encoded once: a hit then writes bytes.
const replays = new WeakMap<ChatCompletion, Replay>();

/** The completion replayed as the SSE an upstream would send (`completionToChunks`, then `[DONE]`), encoded once per object. */
function replayBytes(completion: ChatCompletion, model: string): Uint8Array<ArrayBuffer> {
  const known = replays.get(completion);
  if (known && known.model === model) return known.bytes;
  const named = completion.model === model ? completion : { ...completion, model };
  const bytes = utf8.encode(completionToChunks(named).map(eventText).join('') + DONE);
  replays.set(completion, { model, bytes });
  return bytes;
}

/**
 * A plugin's answer in place of a routed upstream result: the completion (JSON), or replayed
 * as the SSE an upstream would send, so the response side (transforms, usage chunk,
 * settlement) treats it as any upstream's answer. The plugin's object is never written to
 * (PluginAnswer's contract lets it share one across requests): a JSON answer is a shallow
 * copy the response side completes, a stream is a new body over the same bytes.
 */
export function answerAsRouted(responded: RespondedAnswer, stream: boolean, model: string): Routed<ProviderChatResult> {
  const { completion } = responded.answer;
  const result: ProviderChatResult = stream
    ? { kind: 'stream', body: new Response(replayBytes(completion, model)).body! }
    : { kind: 'json', body: { ...completion, model } };
  return { result, replica: `plugin:${responded.plugin}`, done() {} };
}

/** What the meter settles for a plugin's answer: its charges (and the plugins' extras), no token rows; the rate limits count its `limitTokens`. */
export function answerMetered(
  answer: PluginAnswer,
  extras: PluginCharge[],
  startedAt: number,
  notes?: Record<string, string>,
): MeteredUsage {
  const { charges } = answer;
  return {
    notes: notes && notesText(notes),
    promptTokens: 0,
    completionTokens: 0,
    extras: charges?.length ? [...charges, ...extras] : extras,
    extrasOnly: true,
    limitTokens: Math.max(0, answer.limitTokens ?? 0),
    executionMs: Math.round(performance.now() - startedAt),
  };
}
