import { Type as T, type Static } from '@sinclair/typebox';
import { VIDEO_ASPECT_RATIOS, VIDEO_DURATIONS, VIDEO_RESOLUTIONS } from '../models/media-spec';

const literals = <V extends string | number>(values: readonly V[], o: Record<string, unknown> = {}) =>
  T.Union(
    values.map((v) => T.Literal(v)),
    o,
  );

const Model = (kind: string) => T.String({ minLength: 1, maxLength: 200, description: `A ${kind} model id (GET /models?type=${kind})` });
/** A media input: an http(s) URL (fetched through the SSRF guard) or a data URL. */
const MediaUrl = (what: string) => T.String({ minLength: 1, description: `${what}: an http(s) URL or a data URL` });
const UrlList = (what: string, max: number) => T.Array(MediaUrl(what), { maxItems: max, description: `At most ${max}` });
const Duration = literals(VIDEO_DURATIONS, { description: 'One of the durations the model offers (GET /models?type=video)' });
const AspectRatio = literals(VIDEO_ASPECT_RATIOS, { description: 'One of the aspect ratios the model offers' });
const Resolution = literals(VIDEO_RESOLUTIONS, { description: 'One of the resolutions the model offers' });
// An integer range, not a union of literals: Elysia's OpenAPI writer types a literal union as a string enum. The model's factors are checked per request.
const UpscaleFactor = T.Integer({
  minimum: 1,
  maximum: 4,
  description: 'Upscale models only: 1 = enhance, 2 (default) or 4, as the model offers',
});
const Consent = T.Literal(true);
const QueueId = T.String({ minLength: 1, maxLength: 100, description: 'The queue_id that /queue returned' });

/** The seedance consent attestations (each must be `true`). */
export const SeedanceConsentSchema = T.Object({
  confirmed_terms_and_privacy: Consent,
  confirmed_legal_right: Consent,
  confirmed_screening_acknowledged: Consent,
});

/** QueueVideoRequest (API-NOTES section 5); not strict, as the reference is not. */
export const QueueVideoSchema = T.Object({
  model: Model('video'),
  prompt: T.String({ minLength: 1, maxLength: 10_000, description: "1 to 10,000 characters, within the model's promptCharacterLimit" }),
  negative_prompt: T.Optional(T.String({ maxLength: 10_000 })),
  duration: Duration,
  aspect_ratio: T.Optional(AspectRatio),
  resolution: T.Optional(Resolution),
  upscale_factor: T.Optional(UpscaleFactor),
  audio: T.Optional(T.Boolean({ default: true })),
  image_url: T.Optional(MediaUrl('The start frame')),
  end_image_url: T.Optional(MediaUrl('The end frame')),
  audio_url: T.Optional(MediaUrl('Background audio (WAV, MP3)')),
  video_url: T.Optional(MediaUrl('The input video (MP4, MOV, WebM)')),
  reference_image_urls: T.Optional(UrlList('A reference image', 9)),
  reference_video_urls: T.Optional(UrlList('A reference video', 3)),
  reference_audio_urls: T.Optional(UrlList('A reference audio clip', 3)),
  elements: T.Optional(
    T.Array(
      T.Object({
        frontal_image_url: T.Optional(MediaUrl("The element's frontal image")),
        reference_image_urls: T.Optional(UrlList('An element reference image', 3)),
        video_url: T.Optional(MediaUrl('The element video')),
      }),
      { maxItems: 4 },
    ),
  ),
  scene_image_urls: T.Optional(UrlList('A scene image', 4)),
  consents: T.Optional(T.Object({ seedance: T.Optional(SeedanceConsentSchema) })),
});
export type QueueVideoRequest = Static<typeof QueueVideoSchema>;

/** QuoteVideoRequest; not strict. */
export const QuoteVideoSchema = T.Object({
  model: Model('video'),
  duration: Duration,
  aspect_ratio: T.Optional(AspectRatio),
  resolution: T.Optional(Resolution),
  upscale_factor: T.Optional(UpscaleFactor),
  audio: T.Optional(T.Boolean({ default: true })),
  video_url: T.Optional(T.String()),
  reference_video_total_duration: T.Optional(T.Number({ minimum: 0, maximum: 45 })),
});
export type QuoteVideoRequest = Static<typeof QuoteVideoSchema>;

/** RetrieveVideoRequest and RetrieveAudioRequest (strict). */
export const RetrieveJobSchema = T.Object(
  {
    model: T.String({ minLength: 1, maxLength: 200 }),
    queue_id: QueueId,
    delete_media_on_completion: T.Optional(T.Boolean({ default: false })),
  },
  { additionalProperties: false },
);
export type RetrieveJobRequest = Static<typeof RetrieveJobSchema>;

/** CompleteVideoRequest and CompleteAudioRequest (strict). */
export const CompleteJobSchema = T.Object(
  { model: T.String({ minLength: 1, maxLength: 200 }), queue_id: QueueId },
  { additionalProperties: false },
);
export type CompleteJobRequest = Static<typeof CompleteJobSchema>;

const DurationSeconds = T.Union([T.Integer({ exclusiveMinimum: 0, maximum: 3600 }), T.String({ pattern: '^\\d{1,4}$' })], {
  description: 'Seconds, as an integer or a digit string; the model default when omitted',
});

/** QueueAudioRequest (strict). */
export const QueueAudioSchema = T.Object(
  {
    model: Model('music'),
    prompt: T.String({ minLength: 1, maxLength: 10_000 }),
    lyrics_prompt: T.Optional(T.String({ maxLength: 10_000 })),
    duration_seconds: T.Optional(DurationSeconds),
    force_instrumental: T.Optional(T.Boolean()),
    lyrics_optimizer: T.Optional(T.Boolean()),
    voice: T.Optional(T.String({ minLength: 1, maxLength: 100 })),
    language_code: T.Optional(T.String({ pattern: '^[a-z]{2}$' })),
    speed: T.Optional(T.Number({ minimum: 0.25, maximum: 4 })),
  },
  { additionalProperties: false },
);
export type QueueAudioRequest = Static<typeof QueueAudioSchema>;

/** QuoteAudioRequest (strict). */
export const QuoteAudioSchema = T.Object(
  {
    model: Model('music'),
    duration_seconds: T.Optional(DurationSeconds),
    character_count: T.Optional(T.Integer({ exclusiveMinimum: 0, maximum: 1_000_000 })),
  },
  { additionalProperties: false },
);
export type QuoteAudioRequest = Static<typeof QuoteAudioSchema>;

/** `{quote}`: the price in USD. */
export const QuoteResponseSchema = T.Object({ quote: T.Number({ description: 'USD' }) });
/** The answer of /video/queue. */
export const QueueVideoResponseSchema = T.Object({ model: T.String(), queue_id: T.String(), download_url: T.Optional(T.String()) });
/** The answer of /audio/queue. */
export const QueueAudioResponseSchema = T.Object({ model: T.String(), queue_id: T.String(), status: T.Literal('QUEUED') });
/** A job still running. */
export const JobStatusSchema = T.Object({
  status: T.Union([T.Literal('PROCESSING'), T.Literal('COMPLETED')]),
  average_execution_time: T.Number({ description: "ms (P80 of the model's finished jobs)" }),
  execution_duration: T.Number({ description: 'ms since the job was queued' }),
});
/** The answer of /complete. */
export const CompleteResponseSchema = T.Object({ success: T.Boolean() });

/** CreateVideoTranscriptionRequestSchema (strict). */
export const VideoTranscriptionSchema = T.Object(
  {
    url: T.String({
      minLength: 1,
      maxLength: 2048,
      description: 'A public http(s) URL of a video or audio file, fetched through the SSRF guard',
    }),
    response_format: T.Optional(T.Union([T.Literal('json'), T.Literal('text')], { default: 'json' })),
  },
  { additionalProperties: false },
);
export type VideoTranscriptionRequest = Static<typeof VideoTranscriptionSchema>;

/** The answer of /video/transcriptions in JSON. */
export const VideoTranscriptionResponseSchema = T.Object({ transcript: T.String(), lang: T.Optional(T.String()) });
