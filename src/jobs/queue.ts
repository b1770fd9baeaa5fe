import { randomUUID } from 'node:crypto';
import type { ExtraCharge } from '../billing/meter';
import type { JobsDeps } from './deps';
import type { ModelCall } from '../pipeline/model-call';
import type { JsonBody, MediaKind } from '../../providers/types';
import { resolveInputs, urlFields, checkInputsOffered } from './inputs';
import { audioCharges, videoCharges } from './pricing';
import type { JobsRuntime } from './runtime';
import type { QueueAudioRequest, QueueVideoRequest } from './schema';
import { insertJob } from './store';
import { audioSeconds, checkAudioRequest, checkConsent, checkVideoOptions, checkVideoPrompt, musicSpecOf, videoSpecOf } from './validate';

/**
 * Queues one job on the metered call: reserves its price and keeps the reservation past this
 * request (until the deadline, plus a lease for the last poll), submits it to a `jobs`
 * replica, and records the job for the runner. Any failure before the row is written gives
 * the reservation back: nothing is charged for a job svc does not hold.
 */
async function submit(deps: JobsDeps, rt: JobsRuntime, call: ModelCall, kind: MediaKind, body: JsonBody, charges: ExtraCharge[]) {
  const createdAt = deps.now();
  const deadline = createdAt + rt.config.deadlineMs;
  await call.reserve({ promptTokens: 0, completionTokens: 0, extras: charges, holdUntil: deadline + 2 * rt.config.leaseMs });
  const id = randomUUID();
  try {
    let upstreamModel = call.model.id;
    const routed = await call.route('jobs', (provider, options) => {
      upstreamModel = options.upstreamModel;
      return provider.jobs({ op: 'submit', kind, body: { ...body, model: options.upstreamModel } }, options);
    });
    routed.done();
    await insertJob(deps.storage.db, {
      id,
      kind,
      accountId: call.request.caller!.accountId,
      modelId: call.model.id,
      requestId: call.request.requestId,
      charges,
      providerId: routed.replica,
      upstreamModel,
      upstreamId: routed.result.id,
      status: 'PROCESSING',
      nextPollAt: new Date(createdAt + rt.config.minPollDelayMs),
      deadlineAt: new Date(deadline),
      createdAt: new Date(createdAt),
    });
  } catch (error) {
    return call.fail(error);
  }
  call.end();
  if (call.model.simulated) call.headers['x-svc-simulated'] = 'true';
  deps.log.info('jobs: queued', { queueId: id, kind, model: call.model.id, requestId: call.request.requestId });
  return id;
}

/** POST /video/queue: validated against the model (options, prompt, inputs, consent), inputs fetched through the SSRF guard, then queued. */
export async function queueVideo(deps: JobsDeps, rt: JobsRuntime, call: ModelCall, req: QueueVideoRequest) {
  const spec = videoSpecOf(call.model);
  checkVideoOptions(call.model, spec, req);
  checkVideoPrompt(call.model, req);
  const fields = urlFields(req);
  checkInputsOffered(fields, spec, call.model.id);
  checkConsent(spec, req, `${deps.config.basePath}/docs`);
  const charges = videoCharges(call.model, spec, req);
  const inputs = await resolveInputs(req, fields, {
    allowPrivate: deps.config.allowPrivateUrls,
    maxBytes: rt.config.maxInputBytes,
    timeoutMs: rt.config.inputTimeoutMs,
    fetch: deps.fetch,
    signal: call.signal,
  });
  const { consents: _consents, ...upstream } = inputs;
  const id = await submit(deps, rt, call, 'video', upstream as JsonBody, charges);
  return { model: call.model.id, queue_id: id };
}

/** POST /audio/queue: validated against the model's options, priced per second or per thousand characters, then queued. */
export async function queueAudio(deps: JobsDeps, rt: JobsRuntime, call: ModelCall, req: QueueAudioRequest) {
  const spec = musicSpecOf(call.model);
  checkAudioRequest(call.model, spec, req);
  const seconds = audioSeconds(req.duration_seconds);
  const characters = req.prompt.length + (req.lyrics_prompt?.length ?? 0);
  const charges = audioCharges(call.model, spec, { seconds, characters });
  const body: JsonBody = { ...req, duration_seconds: seconds ?? spec.defaultSeconds, format: spec.format };
  const id = await submit(deps, rt, call, 'audio', body, charges);
  return { model: call.model.id, queue_id: id, status: 'QUEUED' as const };
}
