import type { JobsDeps } from './deps';
import { jobsConfigOf, type JobsConfig } from './config';
import { FinishTimes } from './finish-times';
import { observeJobs } from './metrics';
import { openMediaStorage, type MediaStorage } from './media-storage';
import { startJobRunner, type JobHandler, type JobRunner } from './runner';

/** One app's media-job parts: the config, where media is stored, and the running job runner. */
export interface JobsRuntime {
  config: JobsConfig;
  storage: MediaStorage;
  runner: JobRunner;
  /** The models' P80 times to finish, which a running job's progress reports. */
  finishTimes: FinishTimes;
  /** Stops the progress log. */
  unobserve: () => void;
}

const runtimes = new WeakMap<JobsDeps, JobsRuntime>();
const handlersOf = new WeakMap<JobsDeps, Map<string, JobHandler>>();

/** The job handlers registered for an app's deps (kept apart from the runtime: a runner started again after a stop sees them too). */
function handlers(deps: JobsDeps): Map<string, JobHandler> {
  let map = handlersOf.get(deps);
  if (!map) handlersOf.set(deps, (map = new Map()));
  return map;
}

/** Registers the handler of a job kind svc runs itself (a background response) on the app's runner. */
export function handleJobKind(deps: JobsDeps, kind: string, handler: JobHandler): void {
  handlers(deps).set(kind, handler);
}

/** Wakes the app's running job runner (a job was just queued); nothing when it was stopped or never started. */
export function wakeJobs(deps: JobsDeps): void {
  runtimes.get(deps)?.runner.wake();
}

/** The media-job runtime of an app's deps, built (and its runner started) on first use. */
export function jobsRuntimeOf(deps: JobsDeps): JobsRuntime {
  let rt = runtimes.get(deps);
  if (!rt) {
    const config = jobsConfigOf(deps.config);
    const storage = openMediaStorage(config, deps.config.dataDir);
    const runner = startJobRunner({
      db: deps.storage.db,
      meter: deps.meter,
      providers: deps.providers,
      storage,
      config,
      log: deps.log,
      now: deps.now,
      handlers: handlers(deps),
    });
    const unobserve = observeJobs(deps.storage.db, runner, deps.log, deps.now);
    rt = { config, storage, runner, finishTimes: new FinishTimes(deps.storage.db, deps.now), unobserve };
    runtimes.set(deps, rt);
  }
  return rt;
}

/** Stops the runner of `deps` (waiting for its round in flight), if one was started. */
export async function stopJobs(deps: JobsDeps): Promise<void> {
  const rt = runtimes.get(deps);
  if (!rt) return;
  runtimes.delete(deps);
  rt.unobserve();
  await rt.runner.stop();
}
