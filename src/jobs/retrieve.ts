import type { JobsDeps } from './deps';
import { invalidField, ServiceError } from '../http/errors';
import { wholeBody } from '../http/large-body';
import type { Caller } from '../http/request-context';
import type { ModelEntry } from '../models/catalog';
import type { MediaKind } from '../../providers/types';
import { rangeOf } from './range';
import type { JobsRuntime } from './runtime';
import type { CompleteJobRequest, RetrieveJobRequest } from './schema';
import { findJob, markDeleted, type MediaJob } from './store';

/** The reference's 404 for a job that is not there, not the caller's, or whose media is gone. */
const mediaNotFound = () =>
  new ServiceError(404, {
    error: 'Media could not be found. The request may be invalid, expired, or deleted.',
    details: { _errors: [], queue_id: { _errors: ['No media for this queue_id'] } },
  });

/** The caller's job of this kind and model; null when there is none (another account's job is none too). */
async function ownJob(deps: JobsDeps, kind: MediaKind, caller: Caller, req: { queue_id: string }, model: ModelEntry) {
  const job = await findJob(deps.storage.db, req.queue_id);
  if (!job || job.accountId !== caller.accountId || job.kind !== kind) return null;
  if (job.modelId !== model.id) throw invalidField('model', `must be the model the job was queued with ("${job.modelId}")`);
  return job;
}

/** A running job's progress: the model's P80 time to finish (its expected time before any finished) and the time so far. */
async function progress(deps: JobsDeps, rt: JobsRuntime, job: MediaJob, model: ModelEntry) {
  const expected = (model.config.video?.expectedSeconds ?? model.config.music?.expectedSeconds ?? 60) * 1000;
  const p80 = await rt.finishTimes.p80(job.modelId);
  return {
    status: 'PROCESSING' as const,
    average_execution_time: p80 ?? expected,
    execution_duration: Math.max(0, deps.now() - job.createdAt.getTime()),
  };
}

/** The error a job that ended without media answers: the reference's 422 for a content-policy refusal, else 500; both refunded. */
function endedWithout(job: MediaJob): ServiceError {
  if (job.status === 'REFUSED')
    return new ServiceError(422, {
      error: {
        message: `The selected model provider rejected this request due to its content policies. Credits have been refunded.`,
        type: 'provider_content_policy',
        credits_refunded: job.outcome === 'refunded',
      },
    } as never);
  return new ServiceError(500, {
    error: `The ${job.kind} generation failed (${job.error ?? 'provider error'}). Credits have been refunded.`,
    credits_refunded: job.outcome === 'refunded',
  });
}

/**
 * POST /{video,audio}/retrieve: the job's progress while it runs; its media once done
 * (streamed from storage, with a single HTTP range honoured), deleted afterwards when
 * `delete_media_on_completion`; the refund error when it failed; 404 when it is not the caller's or its media is gone.
 */
export async function retrieveJob(
  deps: JobsDeps,
  rt: JobsRuntime,
  kind: MediaKind,
  caller: Caller,
  model: ModelEntry,
  req: RetrieveJobRequest,
  range: string | null,
  headers: Record<string, string | number>,
): Promise<Response | Awaited<ReturnType<typeof progress>>> {
  const job = await ownJob(deps, kind, caller, req, model);
  if (!job || job.status === 'DELETED') throw mediaNotFound();
  if (job.status === 'PROCESSING') return progress(deps, rt, job, model);
  if (job.status !== 'COMPLETED') throw endedWithout(job);
  const media = job.mediaKey ? await rt.storage.get(job.mediaKey) : null;
  if (!media) throw mediaNotFound();
  headers['content-type'] = job.mediaType ?? 'application/octet-stream';
  headers['accept-ranges'] = 'bytes';
  if (model.simulated) headers['x-svc-simulated'] = 'true';
  if (req.delete_media_on_completion) {
    // Marked first, so a second retrieve already answers 404; the bytes are read whole before the file goes.
    if (!(await markDeleted(deps.storage.db, job.id))) throw mediaNotFound();
    const bytes = new Uint8Array(await new Response(media.stream(0, media.size - 1)).arrayBuffer());
    await rt.storage.delete(job.mediaKey!);
    return new Response(wholeBody(bytes));
  }
  const r = rangeOf(range, media.size);
  if (r === 'unsatisfiable') {
    headers['content-range'] = `bytes */${media.size}`;
    return new Response(null, { status: 416 });
  }
  if (!r) {
    headers['content-length'] = media.size;
    return new Response(media.stream(0, media.size - 1));
  }
  headers['content-range'] = `bytes ${r.start}-${r.end}/${media.size}`;
  headers['content-length'] = r.end - r.start + 1;
  return new Response(media.stream(r.start, r.end), { status: 206 });
}

/**
 * POST /{video,audio}/complete: deletes a finished job's media (`{success: true}`);
 * `{success: false}` while it still runs (retry later); 400 naming queue_id when the job is
 * not the caller's or its media was already deleted (complete twice).
 */
export async function completeJob(
  deps: JobsDeps,
  rt: JobsRuntime,
  kind: MediaKind,
  caller: Caller,
  model: ModelEntry,
  req: CompleteJobRequest,
) {
  const job = await ownJob(deps, kind, caller, req, model);
  if (!job) throw invalidField('queue_id', 'no job of yours has this queue_id');
  if (job.status === 'PROCESSING') return { success: false };
  if (job.status === 'DELETED') throw invalidField('queue_id', 'the media of this job was already deleted');
  if (job.status === 'COMPLETED') {
    if (!(await markDeleted(deps.storage.db, job.id))) throw invalidField('queue_id', 'the media of this job was already deleted');
    if (job.mediaKey) await rt.storage.delete(job.mediaKey);
  }
  return { success: true };
}
