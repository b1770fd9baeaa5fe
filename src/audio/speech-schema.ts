import { Type as T, type Static } from '@sinclair/typebox';
import { SPEECH_FORMATS } from '../models/audio-spec';

/** Longest `input` of the reference, in characters. */
export const MAX_SPEECH_CHARACTERS = 4096;

/**
 * The CreateSpeechRequestSchema body (API-NOTES section 4), strict as the reference is.
 * `instructions` is OpenAI's name for `prompt`, accepted so the OpenAI SDK's field works.
 */
export const SpeechRequestSchema = T.Object(
  {
    input: T.String({ minLength: 1, maxLength: MAX_SPEECH_CHARACTERS, description: 'The text to speak (1 to 4096 characters)' }),
    // Optional as in the reference: the route's transform fills the default before validation.
    model: T.Optional(
      T.String({
        minLength: 1,
        default: 'tts-kokoro',
        description: 'A tts model id or compatibility alias (GET /models?type=tts); tts-kokoro by default',
      }),
    ),
    voice: T.Optional(
      T.String({
        minLength: 1,
        maxLength: 128,
        description: "One of the model's voices (model_spec.voices), or a `vv_…` voice cloned by this account (POST /audio/voices)",
      }),
    ),
    response_format: T.Optional(
      T.Union(
        SPEECH_FORMATS.map((f) => T.Literal(f)),
        { default: 'mp3', description: "mp3, opus, aac, flac, wav or pcm; the model's own list is model_spec.supported_formats" },
      ),
    ),
    speed: T.Optional(T.Number({ minimum: 0.25, maximum: 4, default: 1 })),
    streaming: T.Optional(T.Boolean({ default: false, description: 'Pass the audio bytes through as the upstream sends them' })),
    language: T.Optional(T.String({ minLength: 2, maxLength: 32 })),
    prompt: T.Optional(T.String({ maxLength: 500, description: 'Style instructions for models that take them' })),
    instructions: T.Optional(T.String({ maxLength: 500, description: "OpenAI's name for `prompt`" })),
    temperature: T.Optional(T.Number({ minimum: 0, maximum: 2 })),
    top_p: T.Optional(T.Number({ minimum: 0, maximum: 1 })),
  },
  { additionalProperties: false },
);

/** A validated speech request. */
export type SpeechRequest = Static<typeof SpeechRequestSchema>;

/** Media types of the speech formats (the reference's 200 content types). */
export const SPEECH_MEDIA_TYPES: Record<(typeof SPEECH_FORMATS)[number], string> = {
  mp3: 'audio/mpeg',
  opus: 'audio/opus',
  aac: 'audio/aac',
  flac: 'audio/flac',
  wav: 'audio/wav',
  pcm: 'audio/pcm',
};
