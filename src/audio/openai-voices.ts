import type { AudioModelSpec } from '../models/audio-spec';

/** OpenAI's voice names, which its SDKs and most TTS clients send. */
export const OPENAI_VOICES = [
  'alloy',
  'ash',
  'ballad',
  'coral',
  'echo',
  'fable',
  'onyx',
  'nova',
  'sage',
  'shimmer',
  'verse',
  'marin',
  'cedar',
] as const;

/**
 * The model's voice a request's `voice` names: one of the model's own, or a foreign name
 * through the model's `voiceMapping`; a model without one maps OpenAI's voice names onto its
 * voices in turn, so `alloy` speaks on any model (undefined: not a voice of this model).
 */
export function modelVoice(spec: AudioModelSpec, voice: string): string | undefined {
  const voices = spec.voices;
  if (!voices || voices.includes(voice)) return voice;
  if (spec.voiceMapping) return spec.voiceMapping[voice];
  const i = (OPENAI_VOICES as readonly string[]).indexOf(voice);
  return i < 0 ? undefined : voices[i % voices.length];
}
