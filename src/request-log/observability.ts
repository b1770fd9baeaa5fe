import type { Config } from '../config';
import type { Database } from '../db/database';
import type { Logger } from '../log';
import { observabilityConfigOf } from './config';
import { startSpendSeries, type SpendSeries } from './spend-series';
import { startRequestRecorder, type RequestRecorder } from './writer';

/** The request log's writer (null when turned off) and the spend series of /metrics. */
export interface Observability {
  recorder: RequestRecorder | null;
  spend: SpendSeries;
  close(): Promise<void>;
}

/** Starts what config.observability asks for. */
export function startObservability(opts: { config: Config; db: Database; log: Logger; now: () => number }): Observability {
  const config = observabilityConfigOf(opts.config);
  const recorder = config.requestLog.enabled
    ? startRequestRecorder({ db: opts.db, log: opts.log, now: opts.now, config: config.requestLog })
    : null;
  const spend = startSpendSeries(config.spendMetrics);
  return {
    recorder,
    spend,
    async close() {
      spend.close();
      await recorder?.close();
    },
  };
}
