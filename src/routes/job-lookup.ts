import { Elysia } from 'elysia';
import type { AppDeps } from '../deps';
import type { Stages } from '../gates';
import type { Caller } from '../http/request-context';
import { resolveModel } from '../pipeline/model-call';
import { completeJob, retrieveJob } from '../jobs/retrieve';
import { jobsRuntimeOf } from '../jobs/runtime';
import { CompleteJobSchema, CompleteResponseSchema, JobStatusSchema, RetrieveJobSchema } from '../jobs/schema';
import type { MediaKind } from '../../providers/types';
import { errorResponse, errorResponses } from './responses';
import { strictBodies } from './strict-body';

const security: Record<string, string[]>[] = [{ BearerAuth: [] }, { siwx: [] }];

const NAMES = {
  video: { title: 'Video', type: 'video', media: { 'video/mp4': { schema: { type: 'string', format: 'binary' } } } },
  audio: {
    title: 'Audio',
    type: 'music',
    media: Object.fromEntries(['audio/mpeg', 'audio/wav', 'audio/flac'].map((t) => [t, { schema: { type: 'string', format: 'binary' } }])),
  },
} as const;

/**
 * POST /{kind}/retrieve and /{kind}/complete: look-ups of the caller's own job, authenticated
 * like inference (any key or a signed-in wallet) but not metered. Video retrieve counts
 * against the model's Video (retrieve) limit (spec 8.1); the others against the account-wide limit.
 */
export function jobLookupRoutes(deps: AppDeps, stages: Stages, kind: MediaKind) {
  const names = NAMES[kind];
  const Title = names.title;
  const title = kind;
  const modelOf = (name: string) => resolveModel(deps.models, name, [names.type]).model;

  async function admit(
    caller: Caller,
    path: string,
    requestId: string,
    set: { headers: Record<string, string | number> },
    retrieveModel?: ReturnType<typeof modelOf>,
  ) {
    const headers =
      kind === 'video' && retrieveModel
        ? (await deps.limits.admitVideo(caller, retrieveModel, 'retrieve', requestId)).headers
        : await deps.limits.admitRoute(caller, path, requestId);
    Object.assign(set.headers, headers);
  }

  return new Elysia({ name: `svc.routes.${kind}-jobs.lookup` })
    .use(stages)
    .use(strictBodies)
    .post(
      `/${kind}/retrieve`,
      async function retrieveMedia({ body, svc, path, set, request }) {
        const model = modelOf(body.model);
        await admit(svc.caller!, path, svc.requestId, set, model);
        return retrieveJob(deps, jobsRuntimeOf(deps), kind, svc.caller!, model, body, request.headers.get('range'), set.headers);
      },
      {
        authenticate: 'INFERENCE',
        abuseGuard: true,
        // queue_id is looked up in the database, which refuses NUL in text.
        refuseNul: true,
        parse: 'json',
        strictBody: RetrieveJobSchema,
        body: RetrieveJobSchema,
        detail: {
          operationId: `retrieve${Title}`,
          summary: `Retrieve a queued ${title} job`,
          tags: [Title],
          security,
          description:
            `The job's progress while it runs (\`{status: "PROCESSING", average_execution_time, execution_duration}\`, in ms), its ${title} once done ` +
            '(streamed; a single `Range` is honoured with 206), deleted afterwards with `delete_media_on_completion`. A job the provider refused ' +
            "answers 422 ProviderContentPolicyError and a failed one 500, both refunded. Another account's queue_id, or media already deleted: 404.",
          responses: {
            200: { description: 'Progress, or the media', content: { 'application/json': { schema: JobStatusSchema }, ...names.media } },
            206: { description: 'The requested byte range of the media', content: names.media },
            416: errorResponse('The range is past the end of the media'),
            422: errorResponse('The provider refused the job for content policy; credits refunded (ProviderContentPolicyError)'),
            500: errorResponse('The job failed; credits refunded'),
            ...errorResponses(400, 401, 404, 429),
          } as never,
        },
      },
    )
    .post(
      `/${kind}/complete`,
      async function completeMedia({ body, svc, path, set }) {
        const model = modelOf(body.model);
        await admit(svc.caller!, path, svc.requestId, set);
        return completeJob(deps, jobsRuntimeOf(deps), kind, svc.caller!, model, body);
      },
      {
        authenticate: 'INFERENCE',
        abuseGuard: true,
        // queue_id is looked up in the database, which refuses NUL in text.
        refuseNul: true,
        parse: 'json',
        strictBody: CompleteJobSchema,
        body: CompleteJobSchema,
        detail: {
          operationId: `complete${Title}`,
          summary: `Delete a finished ${title} job's media`,
          tags: [Title],
          security,
          description: '`{success: true}` once the media is deleted; `{success: false}` while the job still runs (retry later).',
          responses: {
            200: { description: 'Whether the media was deleted', content: { 'application/json': { schema: CompleteResponseSchema } } },
            ...errorResponses(400, 401, 404, 429),
          } as never,
        },
      },
    );
}
