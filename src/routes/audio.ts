import { Type as T } from '@sinclair/typebox';
import { Elysia } from 'elysia';
import { createClonedVoice, DEFAULT_CLONING_MODEL } from '../audio/clone';
import { createSpeech } from '../audio/speech';
import { SpeechRequestSchema } from '../audio/speech-schema';
import { createTranscription } from '../audio/transcription';
import { TranscriptionRequestSchema, TranscriptionResponseSchema } from '../audio/transcription-schema';
import { VoiceStore } from '../audio/voices';
import type { AppDeps } from '../deps';
import type { Stages } from '../gates';
import type { Caller } from '../http/request-context';
import { imageBodyParser, jsonImageBody, rejectUnknownFields } from '../images/body';
import type { ModelCatalog } from '../models/catalog';
import type { ModelType } from '../models/schema';
import { errorResponse, errorResponses } from './responses';
import { withExample } from '../http/openapi-example';

const security: Record<string, string[]>[] = [{ BearerAuth: [] }, { siwx: [] }];
const TOO_LARGE = { 413: errorResponse('The file is over 25 MB (`{code: "PAYLOAD_TOO_LARGE", error}`)') };

/** The multipart fields of the upload routes, typed before validation. */
const UPLOAD = imageBodyParser({ booleans: ['timestamps'], numbers: ['temperature'], lists: ['timestamp_granularities'] });

/** The voice-cloning body: a sample and the model it is for. */
const ClonedVoiceRequestSchema = T.Object(
  {
    file: T.Optional(T.Unknown({ description: 'A voice sample (an audio file the transcription route accepts)', format: 'binary' })),
    model: T.Optional(T.String({ minLength: 1, default: DEFAULT_CLONING_MODEL, description: 'A tts model with voice_cloning' })),
  },
  { additionalProperties: false },
);

/**
 * The `transform` hook that gives a body without `model` the reference's default for the
 * route, or the catalog's `default` trait of that type when the reference's is not served.
 */
function defaultModel(models: ModelCatalog, type: ModelType, referenceId: string) {
  return function audioModelOrDefault({ body }: { body: unknown }): void {
    if (!body || typeof body !== 'object' || Array.isArray(body)) return;
    const b = body as Record<string, unknown>;
    b.model ??= models.get(referenceId) ? referenceId : (models.traits(type).default ?? referenceId);
  };
}

/** POST /audio/speech, /audio/transcriptions and /audio/voices (the reference's Audio tag, createSpeech, createTranscription, createClonedVoice). */
export function audioRoutes(deps: AppDeps, stages: Stages) {
  const voices = new VoiceStore(deps.storage.db, deps.now);
  return new Elysia({ name: 'svc.routes.audio' })
    .use(stages)
    .post('/audio/speech', ({ body, call }) => createSpeech(body, call, voices), {
      meter: { type: 'tts' },
      parse: [jsonImageBody, 'application/json'],
      transform: [rejectUnknownFields(SpeechRequestSchema), defaultModel(deps.models, 'tts', 'tts-kokoro')],
      body: withExample(SpeechRequestSchema, { model: 'tts-kokoro', input: 'Hello from svc.', voice: 'af_sky' }),
      detail: {
        operationId: 'createSpeech',
        summary: 'Generate speech from text',
        tags: ['Audio'],
        security,
        description:
          "OpenAI-compatible text to speech (the OpenAI SDK's audio.speech.create). Charged per input character at the model's " +
          '`pricing.input` (USD per 1M characters). `streaming: true` passes the audio through as it is produced; a stream that ' +
          'breaks mid-audio is not charged. `voice` is one of model_spec.voices or a `vv_…` voice this account cloned.',
        responses: {
          200: {
            description: 'The audio in `response_format`',
            content: Object.fromEntries(
              ['audio/mpeg', 'audio/opus', 'audio/aac', 'audio/flac', 'audio/wav', 'audio/pcm'].map((t) => [
                t,
                { schema: { type: 'string', format: 'binary' } },
              ]),
            ),
          },
          ...errorResponses(400, 401, 402, 403, 404, 415, 429, 502, 503, 504),
        } as never,
      },
    })
    .post(
      '/audio/transcriptions',
      async function transcribeRoute({ body, call, set }) {
        const answer = await createTranscription(body, call);
        if (typeof answer === 'string')
          set.headers['content-type'] = body.response_format === 'vtt' ? 'text/vtt; charset=utf-8' : 'text/plain; charset=utf-8';
        return answer;
      },
      {
        meter: { type: 'asr' },
        parse: [UPLOAD, 'multipart/form-data'],
        transform: [rejectUnknownFields(TranscriptionRequestSchema), defaultModel(deps.models, 'asr', 'nvidia/parakeet-tdt-0.6b-v3')],
        body: TranscriptionRequestSchema,
        detail: {
          operationId: 'createTranscription',
          summary: 'Transcribe audio',
          tags: ['Audio'],
          security,
          description:
            "OpenAI-compatible transcription (the OpenAI SDK's audio.transcriptions.create). `file` is WAV, FLAC, M4A, AAC, MP4, MP3, " +
            'OGG or WEBM, recognised by its content; at most 25 MB. Charged per second of audio, read from the file itself. ' +
            "`json`: `{text, duration, timestamps?}`; `text`, `srt` and `vtt` as text; `verbose_json` in OpenAI's shape.",
          responses: {
            200: {
              description: 'The transcript',
              content: { 'application/json': { schema: TranscriptionResponseSchema }, 'text/plain': { schema: { type: 'string' } } },
            },
            ...TOO_LARGE,
            ...errorResponses(400, 401, 402, 403, 404, 415, 429, 502, 503, 504),
          } as never,
        },
      },
    )
    .post('/audio/voices', ({ body, svc }) => createClonedVoice(body, (svc.caller as Caller).accountId, { models: deps.models, voices }), {
      auth: 'INFERENCE',
      parse: [UPLOAD, 'multipart/form-data'],
      transform: rejectUnknownFields(ClonedVoiceRequestSchema),
      body: ClonedVoiceRequestSchema,
      detail: {
        operationId: 'createClonedVoice',
        summary: 'Clone a voice from a sample',
        tags: ['Audio'],
        security,
        description:
          'Stores a `vv_…` voice made from the uploaded sample for a tts model with voice_cloning (tts-chatterbox-hd by default). ' +
          'The voice is usable in /audio/speech by this account only.',
        responses: {
          200: {
            description: 'The voice',
            content: { 'application/json': { schema: T.Object({ id: T.String({ pattern: '^vv_' }), model: T.String() }) } },
          },
          ...TOO_LARGE,
          ...errorResponses(400, 401, 403, 415, 429),
        } as never,
      },
    });
}
