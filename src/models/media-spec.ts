import { Type as T, type Static } from '@sinclair/typebox';

/** A decimal USD amount (repeated from schema.ts so that file can import this one without a cycle). */
const DecimalSchema = T.Union([T.String({ pattern: '^\\d+(\\.\\d+)?$' }), T.Number({ minimum: 0 })]);

/** The reference's video durations (QueueVideoRequest.duration). */
export const VIDEO_DURATIONS = [...Array.from({ length: 16 }, (_, i) => `${i + 1}s`), '18s', '20s', '25s', '30s', '1 gen', 'Auto'] as const;

/** The reference's video aspect ratios. */
export const VIDEO_ASPECT_RATIOS = ['1:1', '2:3', '3:2', '3:4', '4:3', '4:5', '5:4', '9:16', '9:21', '16:9', '21:9'] as const;

/** The reference's video resolutions. */
export const VIDEO_RESOLUTIONS = [
  '256p',
  '360p',
  '480p',
  '540p',
  '580p',
  '720p',
  '1080p',
  '1440p',
  '2160p',
  '4k',
  '2x',
  '4x',
  'true_1080p',
] as const;

/** Percent multipliers keyed by an option value (integers keep the price exact). */
const Percentages = T.Record(T.String(), T.Integer({ minimum: 1, maximum: 10_000 }));

/**
 * The video part of a catalog model (config `video`): the options it offers, what it takes
 * as input and its price. The price of a job is `pricing.perSecond[resolution]` (or the
 * model's `pricing.perUnit`) times the seconds, plus `audioPerSecond` when audio is on,
 * times the aspect-ratio and upscale-factor percentages (src/jobs/pricing.ts).
 */
export const VideoModelSpecSchema = T.Object({
  durations: T.Array(T.Union(VIDEO_DURATIONS.map((d) => T.Literal(d))), { minItems: 1 }),
  /** Seconds billed for the durations that name none ("1 gen", "Auto"). */
  defaultSeconds: T.Integer({ minimum: 1, default: 5 }),
  resolutions: T.Array(T.Union(VIDEO_RESOLUTIONS.map((r) => T.Literal(r))), { default: [] }),
  defaultResolution: T.Optional(T.Union(VIDEO_RESOLUTIONS.map((r) => T.Literal(r)))),
  aspectRatios: T.Array(T.Union(VIDEO_ASPECT_RATIOS.map((r) => T.Literal(r))), { default: [] }),
  defaultAspectRatio: T.Optional(T.Union(VIDEO_ASPECT_RATIOS.map((r) => T.Literal(r)))),
  /** Upscale models: the factors offered. */
  upscaleFactors: T.Optional(T.Array(T.Union([T.Literal(1), T.Literal(2), T.Literal(4)]), { minItems: 1 })),
  /** Whether the model generates (and prices) an audio track. */
  audio: T.Boolean({ default: false }),
  /** What the model takes as input: image-to-video, end frames, reference media, elements. */
  inputs: T.Array(
    T.Union(
      ['image', 'end_image', 'audio', 'video', 'reference_images', 'reference_videos', 'reference_audios', 'elements', 'scenes'].map((v) =>
        T.Literal(v),
      ),
    ),
    { default: [] },
  ),
  /** A provider consent flow the model asks for before face-bearing media (the reference's seedance). */
  consent: T.Optional(T.Literal('seedance')),
  /** Typical time to finish, in seconds, for retrieve's `average_execution_time` before any job of the model has finished. */
  expectedSeconds: T.Integer({ minimum: 1, default: 60 }),
  pricing: T.Object(
    {
      perSecond: T.Optional(T.Record(T.String(), DecimalSchema)),
      audioPerSecond: T.Optional(DecimalSchema),
      aspectRatio: T.Optional(Percentages),
      upscaleFactor: T.Optional(Percentages),
    },
    { default: {} },
  ),
});

/** The video part of a model's config. */
export type VideoModelSpec = Static<typeof VideoModelSpecSchema>;

/**
 * The asynchronous-audio part of a catalog model (config `music`, type `music`): durations
 * and how it is priced, per second (`pricing.perUnit`) or per thousand characters.
 */
export const MusicModelSpecSchema = T.Object({
  /** Seconds billed when the request names none. */
  defaultSeconds: T.Integer({ minimum: 1, default: 30 }),
  minSeconds: T.Integer({ minimum: 1, default: 1 }),
  maxSeconds: T.Integer({ minimum: 1, default: 300 }),
  minPromptLength: T.Integer({ minimum: 1, default: 1 }),
  supportsLyrics: T.Boolean({ default: false }),
  supportsForceInstrumental: T.Boolean({ default: false }),
  supportsLyricsOptimizer: T.Boolean({ default: false }),
  supportsLanguageCode: T.Boolean({ default: false }),
  supportsSpeed: T.Boolean({ default: false }),
  voices: T.Array(T.String(), { default: [] }),
  /** Priced per thousand characters of the prompt (and lyrics) instead of per second. */
  perThousandCharacters: T.Optional(DecimalSchema),
  /** The media type of the finished file. */
  format: T.Union([T.Literal('audio/mpeg'), T.Literal('audio/wav'), T.Literal('audio/flac')], { default: 'audio/wav' }),
  expectedSeconds: T.Integer({ minimum: 1, default: 30 }),
});

/** The asynchronous-audio part of a model's config. */
export type MusicModelSpec = Static<typeof MusicModelSpecSchema>;
