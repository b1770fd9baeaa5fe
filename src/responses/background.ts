import { completionBudget } from '../chat/completions';
import type { JobsDeps } from '../jobs/deps';
import { badRequest, invalidField, notFound } from '../http/errors';
import type { JobLease } from '../jobs/runner';
import { handleJobKind, jobsRuntimeOf, wakeJobs } from '../jobs/runtime';
import { cancelJob, findJob, insertHandledJob, noteOutcome, type MediaJob } from '../jobs/store';
import type { ModelCall } from '../pipeline/model-call';
import { chatPromptTokens } from '../pipeline/tokens';
import { storedCaller } from './background-call';
import { failedResponse, runBackgroundCall, type BackgroundBody, type RunOutcome } from './background-run';
import type { ResponseObject } from './response';
import type { ResponsesRuntime } from './runtime';
import type { ChatHandler, Turn } from './turn';

/** Background responses: queued by `POST /responses`, run by the job runner, cancelled by `POST /responses/{id}/cancel`. */
export interface BackgroundResponses {
  /** Reserves the turn's price, stores it `queued` and queues its job; answers the queued response at once. */
  queue(turn: Turn, call: ModelCall): Promise<ResponseObject>;
  /** Cancels the account's queued or running background response; the response as it then is. */
  cancel(accountId: string, id: string): Promise<Record<string, unknown>>;
}

/** The states in which a background response can still be cancelled. */
const ACTIVE = new Set(['queued', 'in_progress']);
/** The job state a finished response's status ends its job with. */
const JOB_STATUS = { completed: 'COMPLETED', cancelled: 'CANCELLED' } as const;

/**
 * `background: true` on the media-jobs runner (src/jobs, DESIGN "Jobs"): the request reserves
 * the turn's maximum price as a kept reservation (`holdUntil`: stored, restored after a
 * restart), stores the response `queued` and writes a job row of kind `response`; the runner
 * claims it under a lease on one instance, runs the chat call on that reservation (settled
 * once, as a foreground call), stores the response and ends the job. A crash leaves the lease
 * to run out and the job is claimed again (the reservation still held: it runs once more,
 * charged once). A cancel before the call gives the reservation back.
 */
export function createBackgroundResponses(deps: JobsDeps, chat: ChatHandler, responses: ResponsesRuntime): BackgroundResponses {
  const { store } = responses;
  const db = deps.storage.db;
  const jobs = jobsRuntimeOf(deps).config;
  const metered = { models: deps.models, meter: deps.meter, router: deps.providers.router, log: deps.log };
  /** Runs on this instance, by response id: a cancel aborts one and waits for its end. */
  const running = new Map<string, { abort: AbortController; done: Promise<void> }>();

  const save = async (body: BackgroundBody, response: ResponseObject) => {
    store.save({ ...body.stored, status: response.status, response });
    // Written before the job ends: a restart between the two finds the response finished and does not run it again.
    await store.flush();
  };

  /** Gives a kept reservation back uncharged (nothing ran). */
  async function release(requestId: string): Promise<void> {
    const ticket = await deps.meter.resume(requestId);
    await ticket?.release();
  }

  async function run(job: MediaJob, lease: JobLease, body: BackgroundBody, abort: AbortController): Promise<RunOutcome | null> {
    const base = body.stored.response as ResponseObject;
    if (deps.now() >= job.deadlineAt.getTime()) {
      await release(job.requestId);
      await save(body, failedResponse(base, 'the background response did not start before its deadline'));
      await lease.finish({ status: 'FAILED', error: 'deadline', outcome: 'released', finishedAt: deps.now() });
      return null;
    }
    // A run that finished and stored its response, then crashed before ending its job: ended now, not run again.
    const current = await store.get(job.accountId, job.id);
    const status = current?.response.status as string | undefined;
    if (status && !ACTIVE.has(status)) {
      await lease.finish({ status: status === 'completed' ? 'COMPLETED' : 'FAILED', finishedAt: deps.now() });
      return null;
    }
    if (!(await lease.renew())) {
      // Cancelled between the claim and now: the cancel found it held, so the reservation is ours to give back.
      const cancelled = (await findJob(db, job.id))?.status === 'CANCELLED';
      return cancelled ? { response: { ...base, status: 'cancelled' }, charged: false } : null;
    }
    await save(body, { ...base, status: 'in_progress' });
    const renewal = setInterval(
      function renewBackgroundLease() {
        lease.renew().then(
          (held) => held || abort.abort(),
          () => {},
        );
      },
      Math.max(50, Math.floor(jobs.leaseMs / 3)),
    );
    try {
      return await runBackgroundCall(metered, chat, body, job.requestId, abort.signal);
    } finally {
      clearInterval(renewal);
    }
  }

  async function settleRun(job: MediaJob, lease: JobLease, body: BackgroundBody, outcome: RunOutcome | null): Promise<void> {
    if (!outcome) return;
    const { response, charged } = outcome;
    if (!charged) await release(job.requestId);
    await save(body, response);
    const ended = await lease.finish({
      status: JOB_STATUS[response.status as keyof typeof JOB_STATUS] ?? 'FAILED',
      error: response.error?.message ?? null,
      outcome: charged ? 'charged' : 'released',
      finishedAt: deps.now(),
    });
    // Cancelled while it ran: the job says so already; what it was charged is noted.
    if (!ended) await noteOutcome(db, job.id, charged ? 'charged' : 'released');
    deps.log.info('responses: background response ended', { id: job.id, status: response.status, charged });
  }

  function runJob(job: MediaJob, lease: JobLease): Promise<void> {
    const body = job.body as unknown as BackgroundBody;
    const abort = new AbortController();
    const done = run(job, lease, body, abort)
      .then((outcome) => settleRun(job, lease, body, outcome))
      .finally(() => running.delete(job.id));
    running.set(job.id, { abort, done: done.catch(() => {}) });
    return done;
  }
  handleJobKind(deps, 'response', runJob);

  return {
    async queue(turn, call) {
      if (!turn.storing)
        throw invalidField(['background'], 'requires store: a background response is kept to be polled (store is false here)', 'body');
      // A payment made for this request pays for a call made now; a queued one is paid from a balance.
      if (call.request.payment && !call.request.payment.signedIn)
        throw invalidField(['background'], 'is not available when paying per call (x402): sign in or use an API key', 'body');
      const request = turn.chatRequest;
      call.useFallbacks(request.fallbacks, 'fallbacks');
      const deadline = turn.createdAt + jobs.deadlineMs;
      const reserving = call.reserve({
        promptTokens: chatPromptTokens(request.messages),
        completionTokens: completionBudget(request, call.model, 1),
        // Past the deadline by two leases: a run claimed at its last moment still settles on it.
        holdUntil: deadline + 2 * jobs.leaseMs,
      });
      if (reserving) await reserving;
      const queued: ResponseObject = { ...turn.shell, status: 'queued' };
      const stored = turn.stored(queued);
      try {
        store.save(stored);
        await store.flush();
        const body: BackgroundBody = { request, caller: storedCaller(call.request.caller!), stored };
        await insertHandledJob(db, {
          id: turn.id,
          kind: 'response',
          accountId: turn.accountId,
          modelId: call.model.id,
          requestId: call.request.requestId,
          deadlineAt: new Date(deadline),
          createdAt: new Date(turn.createdAt),
          body: body as unknown as Record<string, unknown>,
        });
      } catch (error) {
        return call.fail(error);
      }
      call.end();
      wakeJobs(deps);
      return queued;
    },

    async cancel(accountId, id) {
      const found = await store.get(accountId, id);
      if (!found) throw notFound(`response_id: response "${id}" not found`);
      if (found.response.background !== true)
        throw badRequest('response_id: only responses created with background: true can be cancelled', [
          { path: ['response_id'], message: 'Not a background response' },
        ]);
      if (!ACTIVE.has(found.response.status as string)) return found.response;
      const was = await cancelJob(db, id, deps.now());
      if (was) {
        const local = running.get(id);
        if (local) {
          local.abort.abort();
          await local.done;
        } else {
          const held = was.leaseUntil !== null && was.leaseUntil.getTime() > deps.now();
          // Queued (or its worker died): nothing runs it, the reservation goes back. Held by another
          // instance: it sees the cancel at its next lease renewal, stops and stores what it charged.
          if (!held) {
            await release(found.id.slice('resp_'.length));
            await noteOutcome(db, id, 'released');
          }
          store.save({ ...found, status: 'cancelled', response: { ...found.response, status: 'cancelled' } });
          await store.flush();
        }
      }
      return (await store.get(accountId, id))?.response ?? found.response;
    },
  };
}
