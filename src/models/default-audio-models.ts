import type { ModelConfig } from './schema';

/** Kokoro's voice names (a subset of the reference's enum). */
const KOKORO_VOICES = ['af_sky', 'af_bella', 'af_heart', 'af_nova', 'am_adam', 'am_michael', 'bf_emma', 'bm_george'];

/** OpenAI's voice names on Kokoro's, by likeness (an operator's catalog may map them otherwise). */
const KOKORO_FOR_OPENAI: Record<string, string> = {
  alloy: 'af_sky',
  ash: 'am_adam',
  ballad: 'bm_george',
  coral: 'af_heart',
  echo: 'am_michael',
  fable: 'bf_emma',
  onyx: 'am_adam',
  nova: 'af_nova',
  sage: 'af_bella',
  shimmer: 'af_bella',
  verse: 'bm_george',
  marin: 'af_heart',
  cedar: 'am_michael',
};

/**
 * What the simulator really encodes (providers/simulator/speech.ts): WAV and PCM by hand, MP3
 * with lamejs. Opus, AAC and FLAC are not claimed, so a request for them is a 400.
 */
const SIMULATED_FORMATS: NonNullable<ModelConfig['audio']>['formats'] = ['mp3', 'wav', 'pcm'];

/**
 * Text-to-speech and transcription models served by the simulator out of the box (ids from
 * the public catalog the spec derives from), so the audio routes answer on a fresh
 * `npm start`; each is labelled simulated in /models. TTS `input` is USD per 1M characters,
 * ASR `perUnit` USD per second of audio.
 */
export function defaultAudioModels(sim: ModelConfig['routes']): ModelConfig[] {
  const base = { routes: sim, privacy: 'private' as const };
  return [
    {
      ...base,
      id: 'tts-kokoro',
      name: 'Kokoro TTS (simulated)',
      type: 'tts',
      pricing: { input: '3.50' },
      traits: ['default'],
      audio: { voices: KOKORO_VOICES, defaultVoice: 'af_sky', voiceMapping: KOKORO_FOR_OPENAI, formats: SIMULATED_FORMATS },
    },
    {
      ...base,
      id: 'tts-chatterbox-hd',
      name: 'Chatterbox HD (simulated, voice cloning)',
      type: 'tts',
      pricing: { input: '20.00' },
      traits: [],
      audio: {
        voices: ['default'],
        defaultVoice: 'default',
        formats: SIMULATED_FORMATS,
        voiceCloning: { mode: 'zero_shot', minSampleSeconds: 1, retentionDays: 7, acceptedFormats: ['mp3', 'wav', 'flac', 'm4a'] },
      },
    },
    {
      ...base,
      id: 'nvidia/parakeet-tdt-0.6b-v3',
      name: 'Parakeet TDT 0.6B v3 (simulated)',
      type: 'asr',
      pricing: { perUnit: '0.0001' },
      traits: ['default'],
    },
    {
      ...base,
      id: 'openai/whisper-large-v3',
      name: 'Whisper Large v3 (simulated)',
      type: 'asr',
      pricing: { perUnit: '0.0002' },
      traits: [],
    },
  ];
}
