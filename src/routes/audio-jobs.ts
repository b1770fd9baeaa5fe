import { Elysia } from 'elysia';
import type { AppDeps } from '../deps';
import type { Stages } from '../gates';
import { queueAudio } from '../jobs/queue';
import { quoteAudio } from '../jobs/quote';
import { jobsRuntimeOf } from '../jobs/runtime';
import { QueueAudioResponseSchema, QueueAudioSchema, QuoteAudioSchema, QuoteResponseSchema } from '../jobs/schema';
import { strictBodies } from './strict-body';
import { jobLookupRoutes } from './job-lookup';
import { errorResponse, errorResponses } from './responses';
import { withExample } from '../http/openapi-example';

const security: Record<string, string[]>[] = [{ BearerAuth: [] }, { siwx: [] }];

/** POST /audio/quote, /audio/queue, /audio/retrieve and /audio/complete: music and sound effects as durable jobs (src/jobs). */
export function audioJobRoutes(deps: AppDeps, stages: Stages) {
  const rt = jobsRuntimeOf(deps);
  return new Elysia({ name: 'svc.routes.audio-jobs' })
    .use(stages)
    .use(strictBodies)
    .post('/audio/quote', ({ body }) => quoteAudio(deps.models, body), {
      parse: 'json',
      strictBody: QuoteAudioSchema,
      body: withExample(QuoteAudioSchema, { model: 'elevenlabs-music', duration_seconds: 30 }),
      detail: {
        operationId: 'quoteAudio',
        summary: 'Quote an audio job',
        tags: ['Audio'],
        security: [],
        description:
          'The USD price of a music or sound-effect job: per second (the model default when duration_seconds is omitted), or per thousand ' +
          'characters for models priced so (character_count required). The same function prices the reservation and the charge. No authentication.',
        responses: {
          200: { description: 'The price', content: { 'application/json': { schema: QuoteResponseSchema } } },
          ...errorResponses(400, 404),
        } as never,
      },
    })
    .post('/audio/queue', ({ body, call }) => queueAudio(deps, rt, call, body), {
      meter: { type: 'music' },
      parse: 'json',
      strictBody: QueueAudioSchema,
      body: withExample(QueueAudioSchema, {
        model: 'elevenlabs-music',
        prompt: 'A calm piano piece for a rainy morning',
        duration_seconds: 30,
      }),
      detail: {
        operationId: 'queueAudio',
        summary: 'Queue an audio job',
        tags: ['Audio'],
        security,
        description:
          "Validates the request against the model's options, reserves the quoted price and submits the job; poll /audio/retrieve with the queue_id. " +
          'Charged once when the audio is ready, refunded in full if the job fails, is refused or passes its deadline. Counts against the Audio limit.',
        responses: {
          200: { description: 'The queued job', content: { 'application/json': { schema: QueueAudioResponseSchema } } },
          422: errorResponse('The provider refused the prompt (content policy); nothing charged'),
          ...errorResponses(400, 401, 402, 404, 429, 502, 503, 504),
        } as never,
      },
    })
    .use(jobLookupRoutes(deps, stages, 'audio'));
}
