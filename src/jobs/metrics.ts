import type { Database } from '../db/database';
import type { Logger } from '../log';
import { watchMediaJobs, type MediaJobGauges } from '../metrics';
import type { JobRunner } from './runner';
import { jobStats } from './store';

/** How often the runner's progress goes to the log while jobs are running. */
const PROGRESS_LOG_MS = 60_000;

/** Publishes the job gauges in /metrics, and logs the counts every minute while some job runs; returns the function that stops the log. */
export function observeJobs(db: Database, runner: JobRunner, log: Logger, now: () => number = Date.now): () => void {
  async function read(): Promise<MediaJobGauges> {
    const stats = await jobStats(db);
    return {
      counts: stats.counts,
      oldestRunningSeconds: stats.oldestRunning === null ? 0 : Math.max(0, (now() - stats.oldestRunning) / 1000),
      pollLagSeconds: runner.lagMs() / 1000,
    };
  }
  watchMediaJobs(read);
  const timer = setInterval(function logJobProgress() {
    read()
      .then((g) => {
        if ((g.counts.PROCESSING ?? 0) > 0)
          log.info('jobs: progress', { ...g.counts, oldestRunningSeconds: Math.round(g.oldestRunningSeconds), pollLagMs: runner.lagMs() });
      })
      .catch(() => {});
  }, PROGRESS_LOG_MS);
  timer.unref?.();
  return () => clearInterval(timer);
}
