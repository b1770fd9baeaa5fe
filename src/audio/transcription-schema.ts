import { Type as T, type Static } from '@sinclair/typebox';
import { TRANSCRIPTION_FORMATS } from './upload';

/** Answer formats: the reference's json and text, and OpenAI's srt, vtt and verbose_json (the OpenAI SDK sends them). */
export const TRANSCRIPT_FORMATS = ['json', 'text', 'srt', 'vtt', 'verbose_json'] as const;

/** A transcript answer format. */
export type TranscriptFormat = (typeof TRANSCRIPT_FORMATS)[number];

/**
 * The CreateTranscriptionRequestSchema multipart body (API-NOTES section 4), strict as the
 * reference is, plus OpenAI's `prompt`, `temperature` and `timestamp_granularities[]`.
 * `file` is checked by its content in the handler (src/audio/upload.ts), so a missing or
 * non-file value is a 400 naming it there.
 */
export const TranscriptionRequestSchema = T.Object(
  {
    file: T.Optional(T.Unknown({ description: `The audio file: ${TRANSCRIPTION_FORMATS.join(', ')}; at most 25 MB`, format: 'binary' })),
    // Optional as in the reference: the route's transform fills the default before validation.
    model: T.Optional(
      T.String({
        minLength: 1,
        default: 'nvidia/parakeet-tdt-0.6b-v3',
        description: 'An asr model id or compatibility alias (GET /models?type=asr)',
      }),
    ),
    response_format: T.Optional(
      T.Union(
        TRANSCRIPT_FORMATS.map((f) => T.Literal(f)),
        { default: 'json' },
      ),
    ),
    timestamps: T.Optional(T.Boolean({ default: false, description: 'Word and segment times in the JSON answer' })),
    timestamp_granularities: T.Optional(T.Array(T.Union([T.Literal('word'), T.Literal('segment')]), { maxItems: 2 })),
    language: T.Optional(T.String({ pattern: '^[a-z]{2}$', description: 'ISO-639-1 code of the spoken language' })),
    prompt: T.Optional(T.String({ maxLength: 2000 })),
    temperature: T.Optional(T.Number({ minimum: 0, maximum: 1 })),
  },
  { additionalProperties: false },
);

/** A validated transcription request. */
export type TranscriptionRequest = Static<typeof TranscriptionRequestSchema>;

const Span = { start: T.Number(), end: T.Number() };

/** The reference's transcription answer (`json`), and OpenAI's `verbose_json` fields. */
export const TranscriptionResponseSchema = T.Object({
  text: T.String(),
  duration: T.Optional(T.Number({ description: 'Seconds of audio, read from the file' })),
  timestamps: T.Optional(
    T.Object({
      word: T.Array(T.Object({ word: T.String(), ...Span })),
      segment: T.Array(T.Object({ text: T.String(), ...Span })),
    }),
  ),
  task: T.Optional(T.Literal('transcribe')),
  language: T.Optional(T.String()),
  segments: T.Optional(T.Array(T.Object({ id: T.Integer(), text: T.String(), ...Span }))),
  words: T.Optional(T.Array(T.Object({ word: T.String(), ...Span }))),
});

/** A transcription answer as JSON. */
export type TranscriptionResponse = Static<typeof TranscriptionResponseSchema>;
