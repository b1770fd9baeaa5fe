import type { Config } from '../config';
import type { Database } from '../db/database';
import type { Logger } from '../log';
import type { Tracing } from '../tracing';
import { observabilityConfigOf } from './config';
import { startSpendSeries, type SpendSeries } from './spend-series';
import { startRequestRecorder, type RequestRecorder } from './writer';

/** The request log's writer (null when turned off), the spend series of /metrics and tracing (null when off). */
export interface Observability {
  recorder: RequestRecorder | null;
  spend: SpendSeries;
  tracing: Tracing | null;
  close(): Promise<void>;
}

/** Starts what config.observability asks for (tracing is started before, with the logger: it correlates its lines). */
export function startObservability(opts: {
  config: Config;
  db: Database;
  log: Logger;
  now: () => number;
  tracing?: Tracing | null;
}): Observability {
  const config = observabilityConfigOf(opts.config);
  const recorder = config.requestLog.enabled
    ? startRequestRecorder({ db: opts.db, log: opts.log, now: opts.now, config: config.requestLog })
    : null;
  const spend = startSpendSeries(config.spendMetrics);
  const tracing = opts.tracing ?? null;
  return {
    recorder,
    spend,
    tracing,
    async close() {
      spend.close();
      await Promise.all([recorder?.close(), tracing?.close()]);
    },
  };
}
