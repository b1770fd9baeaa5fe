import { Type as T, type Static } from '@sinclair/typebox';

/** The speech formats of the reference's `response_format` (createSpeech). */
export const SPEECH_FORMATS = ['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm'] as const;

/** A speech output format. */
export type SpeechFormat = (typeof SPEECH_FORMATS)[number];

const SpeechFormatSchema = T.Union(SPEECH_FORMATS.map((f) => T.Literal(f)));

/**
 * The audio-specific part of a catalog model (config `audio`). Text-to-speech models list
 * their voices and the formats they really produce (a request for another is a 400), and
 * whether a sample can be cloned into a `vv_` voice; published as `model_spec.voices`,
 * `model_spec.voice_cloning` and `model_spec.constraints` in the reference's record shape.
 * Prices stay in `pricing`: tts `input` per 1M characters, asr `perUnit` per audio second.
 */
export const AudioModelSpecSchema = T.Object(
  {
    voices: T.Optional(T.Array(T.String({ minLength: 1 }), { minItems: 1 })),
    defaultVoice: T.Optional(T.String({ minLength: 1 })),
    /**
     * Foreign voice names (OpenAI's `alloy`, `nova`, ...) -> one of `voices`, as
     * compatibilityMapping maps model ids. Absent: OpenAI's names map onto `voices` in turn;
     * `{}`: only the model's own names.
     */
    voiceMapping: T.Optional(T.Record(T.String({ minLength: 1 }), T.String({ minLength: 1 }))),
    formats: T.Optional(T.Array(SpeechFormatSchema, { minItems: 1 })),
    /** Largest `input`, in characters (the reference's 4096 when absent). */
    maxInputCharacters: T.Optional(T.Integer({ minimum: 1, maximum: 4096 })),
    voiceCloning: T.Optional(
      T.Object(
        {
          /** zero_shot: a handle lives `retentionDays` from its creation; persistent: from its last use. */
          mode: T.Union([T.Literal('zero_shot'), T.Literal('persistent')]),
          minSampleSeconds: T.Number({ minimum: 0 }),
          retentionDays: T.Integer({ minimum: 1, default: 7 }),
          /** Sample containers accepted (read from the bytes); every transcription format when absent. */
          acceptedFormats: T.Optional(T.Array(T.String({ minLength: 1 }), { minItems: 1 })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

/** The audio spec of a catalog model, as configured. */
export type AudioModelSpec = Static<typeof AudioModelSpecSchema>;
