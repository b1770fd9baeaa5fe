import { randomUUID } from 'node:crypto';
import type { UsageMeter } from '../billing/meter';
import type { Database } from '../db/database';
import type { Logger } from '../log';
import { responseBytesUpTo } from '../net/limited-body';
import type { ProviderRegistry } from '../../providers/registry';
import { hasCapability, type CallOptions, type MediaJobStatus, type MediaKind } from '../../providers/types';
import type { JobsConfig } from './config';
import type { MediaStorage } from './media-storage';
import { chargeJob, refundJob } from './settlement';
import { claimDue, finishJob, noteNextDue, nothingDueBefore, renewLease, reschedule, type JobEnd, type MediaJob } from './store';

/** A media job (video, audio): polled at its provider. */
type MediaTask = MediaJob & { kind: MediaKind };
const isMedia = (job: MediaJob): job is MediaTask => job.kind === 'video' || job.kind === 'audio';

/** A claimed job's lease as a handler holds it: renew it through a long step, end the job under it. */
export interface JobLease {
  readonly owner: string;
  /** Extends the lease by the configured lease time; false when it was lost or the job is no longer running (cancelled). */
  renew(): Promise<boolean>;
  /** Ends the job under the lease; false when it was lost or the job is no longer running. */
  finish(end: JobEnd): Promise<boolean>;
}

/**
 * A job kind svc runs itself instead of polling a media provider (a background response):
 * called once per claim, not awaited by the round (it may run for minutes); it renews its
 * lease while it runs and ends the job, or leaves it for the next claim after a crash.
 */
export type JobHandler = (job: MediaJob, lease: JobLease) => Promise<void>;

/** What the runner needs: the database, the meter, the providers, media storage, the config and a clock. */
export interface JobRunnerDeps {
  db: Database;
  meter: UsageMeter;
  providers: Pick<ProviderRegistry, 'get'>;
  storage: MediaStorage;
  config: JobsConfig;
  log: Logger;
  now: () => number;
  /** The handlers of the job kinds svc runs itself, by kind (read at each claim: registered after start). */
  handlers?: ReadonlyMap<string, JobHandler>;
}

/** A running job runner: `tick` runs one round now (tests), `stop` ends the timer and waits for the round in flight. */
export interface JobRunner {
  readonly owner: string;
  tick(): Promise<number>;
  /** Runs a round soon (a job was just queued), unless the runner was stopped. */
  wake(): void;
  /** How late the last round started against its schedule, in ms (the poll lag of /metrics). */
  lagMs(): number;
  stop(): Promise<void>;
}

const EXTENSIONS: Record<string, string> = {
  'video/mp4': 'mp4',
  'audio/mpeg': 'mp3',
  'audio/wav': 'wav',
  'audio/flac': 'flac',
};

/** The media type of an upstream answer, reduced to the ones the reference serves (video/mp4, audio/mpeg|wav|flac). */
function mediaTypeOf(kind: MediaKind, contentType: string): string {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  if (kind === 'video') return 'video/mp4';
  if (type === 'audio/x-wav' || type === 'audio/wave') return 'audio/wav';
  return EXTENSIONS[type] ? type : 'audio/mpeg';
}

/**
 * The durable job runner (DESIGN "Jobs"): every `pollIntervalMs` each instance claims due
 * jobs (a lease, taken with SKIP LOCKED), polls each one's provider, and reschedules it with
 * a doubling delay, or stores its media and charges it (completed), or refunds it (failed,
 * refused for content policy, or past its deadline). Upstream errors are retried with the
 * same backoff until the deadline. A crash leaves the lease to run out and another instance
 * (or this one restarted) takes the job again; charging and refunding are idempotent by request id.
 */
export function startJobRunner(d: JobRunnerDeps): JobRunner {
  const owner = `${process.pid}-${randomUUID().slice(0, 8)}`;
  const c = d.config;
  let running: Promise<number> | null = null;
  let lastLag = 0;
  let scheduledAt = d.now() + c.pollIntervalMs;
  let stopped = false;
  /** Handled jobs running on this instance, by id: the round does not wait for them, `stop` does. */
  const handling = new Map<string, Promise<void>>();

  const backoff = (polls: number) => Math.min(c.maxPollDelayMs, c.minPollDelayMs * 2 ** Math.min(20, Math.max(0, polls - 1)));
  const options = (job: MediaJob): CallOptions => ({
    signal: AbortSignal.timeout(c.upstreamTimeoutMs),
    upstreamModel: job.upstreamModel,
    timeoutMs: c.upstreamTimeoutMs,
  });

  async function end(job: MediaJob, status: 'FAILED' | 'REFUSED', reason: string): Promise<void> {
    await refundJob(d, job, reason);
    await finishJob(d.db, job, owner, { status, error: reason, outcome: 'refunded', finishedAt: d.now() });
    d.log.warn('jobs: job ended without media, refunded', { queueId: job.id, model: job.modelId, status, reason });
  }

  async function complete(job: MediaTask): Promise<void> {
    const provider = d.providers.get(job.providerId)!;
    if (!hasCapability(provider, 'jobs')) throw new Error(`provider "${job.providerId}" lost its jobs capability`);
    // The download and the write may take long: a fresh lease for them, or another worker took the job.
    // A lease claimed moments ago (90 % of it left) is as good as a renewed one and cannot have
    // been taken over (only run-out leases are claimed): renewing it was a no-op write per job.
    const fresh = job.leaseUntil !== null && job.leaseUntil.getTime() - d.now() >= c.leaseMs * 0.9;
    if (!fresh && !(await renewLease(d.db, job, owner, d.now() + c.leaseMs))) return;
    const media = await provider.jobs({ op: 'download', kind: job.kind, id: job.upstreamId }, options(job));
    const bytes = await responseBytesUpTo(new Response(media.body), c.maxMediaBytes);
    if (bytes.length === 0) throw new Error('the upstream answered empty media');
    const mediaType = mediaTypeOf(job.kind, media.contentType);
    const key = `${job.id}.${EXTENSIONS[mediaType] ?? 'bin'}`;
    await d.storage.put(key, bytes, mediaType);
    const finishedAt = d.now();
    // Charged before the row says COMPLETED: a crash in between polls again and charges nothing more.
    await chargeJob(d, job, finishedAt - job.createdAt.getTime());
    await finishJob(d.db, job, owner, {
      status: 'COMPLETED',
      outcome: 'charged',
      mediaKey: key,
      mediaType,
      mediaBytes: bytes.length,
      finishedAt,
    });
    d.log.info('jobs: completed', { queueId: job.id, model: job.modelId, bytes: bytes.length, ms: finishedAt - job.createdAt.getTime() });
  }

  async function poll(job: MediaTask): Promise<MediaJobStatus> {
    const provider = d.providers.get(job.providerId);
    if (!provider || !hasCapability(provider, 'jobs')) return { state: 'failed', reason: `provider "${job.providerId}" is not configured` };
    return provider.jobs({ op: 'poll', kind: job.kind, id: job.upstreamId }, options(job));
  }

  function leaseOf(job: MediaJob): JobLease {
    return {
      owner,
      renew: () => renewLease(d.db, job, owner, d.now() + c.leaseMs),
      finish: (end) => finishJob(d.db, job, owner, end),
    };
  }

  /** Starts a handled job (not awaited); a job already running here (claimed again) is left to its run. */
  function handle(job: MediaJob, handler: JobHandler): void {
    if (handling.has(job.id)) return;
    const run = handler(job, leaseOf(job))
      .catch((error) => d.log.warn('jobs: a job handler failed, will retry', { queueId: job.id, kind: job.kind, error: String(error) }))
      .finally(() => handling.delete(job.id));
    handling.set(job.id, run);
  }

  async function runOne(job: MediaJob): Promise<void> {
    const now = d.now();
    if (!isMedia(job)) {
      const handler = d.handlers?.get(job.kind);
      if (handler) return handle(job, handler);
      // An instance that does not run this kind (an older version): left to one that does.
      await reschedule(d.db, job, owner, now + c.maxPollDelayMs);
      return;
    }
    if (now >= job.deadlineAt.getTime()) return end(job, 'FAILED', 'the job did not finish before its deadline');
    try {
      const status = await poll(job);
      if (status.state === 'pending') {
        await reschedule(d.db, job, owner, now + backoff(job.polls));
        return;
      }
      if (status.state === 'refused') return end(job, 'REFUSED', status.reason ?? 'refused by the provider for content policy');
      if (status.state === 'failed') return end(job, 'FAILED', status.reason ?? 'the provider failed the job');
      await complete(job);
    } catch (error) {
      // Upstream unreachable, a broken download, storage down: retried with backoff until the deadline.
      d.log.warn('jobs: poll failed, will retry', { queueId: job.id, polls: job.polls, error: String(error) });
      await reschedule(d.db, job, owner, d.now() + backoff(job.polls)).catch(() => {});
    }
  }

  async function round(): Promise<number> {
    const jobs = await claimDue(d.db, owner, d.now(), c.leaseMs, c.batch);
    if (jobs.length === 0) await noteNextDue(d.db);
    for (const r of await Promise.allSettled(jobs.map(runOne)))
      if (r.status === 'rejected') d.log.warn('jobs: a job round failed, will retry', { error: String(r.reason) });
    return jobs.length;
  }

  function tick(): Promise<number> {
    running ??= round().finally(() => (running = null));
    return running;
  }

  function wake(): void {
    if (stopped || running) return;
    tick().catch((error) => d.log.warn('jobs: runner round failed, will retry', { error: String(error) }));
  }

  const timer = setInterval(function pollJobs() {
    const now = d.now();
    lastLag = Math.max(0, now - scheduledAt);
    scheduledAt = now + c.pollIntervalMs;
    // Embedded: no job due before a known time, so no claim until then (an idle svc ran one
    // query on PGlite a second for nothing). Any write to the jobs table forgets that time.
    if (running || now < nothingDueBefore(d.db)) return;
    tick().catch((error) => d.log.warn('jobs: runner round failed, will retry', { error: String(error) }));
  }, c.pollIntervalMs);
  timer.unref?.();

  return {
    owner,
    tick,
    wake,
    lagMs: () => lastLag,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running?.catch(() => 0);
      // Handled jobs run to their end (their upstream timeout bounds them): one stopped midway would be charged and run again.
      await Promise.all(handling.values());
    },
  };
}
