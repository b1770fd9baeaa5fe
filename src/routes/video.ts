import { Elysia } from 'elysia';
import type { AppDeps } from '../deps';
import type { Stages } from '../gates';
import { queueVideo } from '../jobs/queue';
import { quoteVideo } from '../jobs/quote';
import { jobsRuntimeOf } from '../jobs/runtime';
import {
  QueueVideoResponseSchema,
  QueueVideoSchema,
  QuoteResponseSchema,
  QuoteVideoSchema,
  VideoTranscriptionResponseSchema,
  VideoTranscriptionSchema,
} from '../jobs/schema';
import { transcribeVideo } from '../jobs/transcription';
import { strictBodies } from './strict-body';
import { jobLookupRoutes } from './job-lookup';
import { errorResponse, errorResponses } from './responses';
import { withExample } from '../http/openapi-example';

const security: Record<string, string[]>[] = [{ BearerAuth: [] }, { siwx: [] }];

/** POST /video/quote, /video/queue, /video/retrieve and /video/complete: video generation as durable jobs (src/jobs). */
export function videoRoutes(deps: AppDeps, stages: Stages) {
  const rt = jobsRuntimeOf(deps);
  return new Elysia({ name: 'svc.routes.video' })
    .use(stages)
    .use(strictBodies)
    .post('/video/quote', ({ body }) => quoteVideo(deps.models, body), {
      parse: 'json',
      checkBody: true, // no authentication here: the body check is the only gate before validation
      body: withExample(QuoteVideoSchema, { model: 'wan-2-7-text-to-video', duration: '5s' }),
      detail: {
        operationId: 'quoteVideo',
        summary: 'Quote a video job',
        tags: ['Video'],
        security: [],
        description:
          "The USD price of a video job: seconds at the resolution's per-second price, plus audio, scaled by aspect ratio and upscale factor " +
          '(model_spec of GET /models?type=video). The same function prices the reservation and the charge. No authentication.',
        responses: {
          200: { description: 'The price', content: { 'application/json': { schema: QuoteResponseSchema } } },
          ...errorResponses(400, 404),
        } as never,
      },
    })
    .post('/video/queue', ({ body, call }) => queueVideo(deps, rt, call, body), {
      meter: { type: 'video' },
      parse: 'json',
      body: withExample(QueueVideoSchema, {
        model: 'wan-2-7-text-to-video',
        prompt: 'A paper boat drifting down a rainy street',
        duration: '5s',
      }),
      detail: {
        operationId: 'queueVideo',
        summary: 'Queue a video job',
        tags: ['Video'],
        security,
        description:
          'Validates the request against the model (durations, resolutions, aspect ratios, inputs, prompt limit), fetches URL inputs through the SSRF guard, ' +
          'reserves the quoted price and submits the job; poll /video/retrieve with the queue_id. Charged once when the video is ready, refunded in full ' +
          'if the job fails, is refused or passes its deadline. Counts against the Video (queue) limit.',
        responses: {
          200: { description: 'The queued job', content: { 'application/json': { schema: QueueVideoResponseSchema } } },
          409: errorResponse('Seedance consent is required for media that may show a face (needs_consent)'),
          422: errorResponse('The provider refused the prompt (content policy); nothing charged'),
          ...errorResponses(400, 401, 402, 404, 429, 502, 503, 504),
        } as never,
      },
    })
    .post(
      '/video/transcriptions',
      function createVideoTranscription({ body, svc, request, path, set, server }) {
        return transcribeVideo(deps, rt, { svc, request, path, set, server }, body);
      },
      {
        meterWithoutModel: true,
        strictBody: VideoTranscriptionSchema,
        parse: 'json',
        body: withExample(VideoTranscriptionSchema, { url: 'https://example.com/talk.mp4' }),
        detail: {
          operationId: 'createVideoTranscription',
          summary: 'Transcribe a video at a URL',
          tags: ['Video', 'Transcriptions'],
          security,
          description:
            'Fetches the video (or audio) file at `url` through the SSRF guard (public addresses only, size and time limits; web pages such as ' +
            "a YouTube watch page are not media and are refused) and transcribes it with the transcription model, one call at that model's price. " +
            '`response_format: text` answers text/plain.',
          responses: {
            200: {
              description: 'The transcript',
              content: { 'application/json': { schema: VideoTranscriptionResponseSchema }, 'text/plain': { schema: { type: 'string' } } },
            },
            ...errorResponses(400, 401, 402, 429, 502, 503, 504),
          } as never,
        },
      },
    )
    .use(jobLookupRoutes(deps, stages, 'video'));
}
