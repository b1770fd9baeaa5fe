import type { FamiliesResult } from '../phases/families';
import type { MetricRow } from '../report';
import { GOALS, JSON_CPU_TARGET, jsonCpuCheck, ratioAtMost } from './goals';
import { row, type RowData } from './rows';
import type { RssAroundLoad } from './rss-around';

/** What the rows below read from a run. */
export interface FamilyRowData extends RowData {
  /** The families phase per target name (bench/phases/families.ts). */
  families: Record<string, FamiliesResult>;
  /** RSS just before each target's throughput phases and 10 s after they ended, per target name. */
  rssAroundLoad: Record<string, RssAroundLoad>;
}

/**
 * The newer families' rows (bench/phases/families.ts). The issue sets no target of their own:
 * speech and RPC batches are checked against the JSON target (a request and its answer, both
 * read whole), `/responses` streams against the counted-stream one (svc re-encodes every event
 * from the chat stream, per-chunk work like counting); a media job is reported only, since svc's
 * runner does the upstream polls that the bare proxy's client does itself.
 */
export function familyRows(data: FamilyRowData): MetricRow[] {
  const f = (t: string) => data.families[t];
  return [
    row(
      data,
      'cpu_per_speech',
      'CPU per /audio/speech request (48 KB WAV)',
      'µs',
      (t) => f(t)?.speech?.cpuPerRequestUs,
      JSON_CPU_TARGET,
      jsonCpuCheck,
    ),
    row(
      data,
      'cpu_per_responses_stream',
      'CPU per /responses stream (50 text deltas)',
      'µs',
      (t) => f(t)?.responsesStream?.cpuPerRequestUs,
      `ratio <= ${GOALS.responsesStreamRatio}`,
      ratioAtMost(GOALS.responsesStreamRatio),
    ),
    row(
      data,
      'cpu_per_rpc_batch',
      'CPU per JSON-RPC batch of 10 calls',
      'µs',
      (t) => f(t)?.rpcBatch?.cpuPerRequestUs,
      JSON_CPU_TARGET,
      jsonCpuCheck,
    ),
    row(
      data,
      'cpu_per_job',
      'CPU per media job (submit, polls, 4 KB download)',
      'µs',
      (t) => f(t)?.job?.cpuPerJobUs,
      `embedded ratio <= ${GOALS.jobRatio}`,
      (_, __, r, b) => (b === 'memory+pglite' ? r != null && r <= GOALS.jobRatio : null),
    ),
    row(data, 'requests_per_job', 'client requests per media job (polls every 100 ms)', 'requests', (t) => f(t)?.job?.requestsPerJob),
  ];
}

/** RSS before the throughput load and 10 s after it, and the growth checked against its target. */
export function rssAroundLoadRows(data: FamilyRowData): MetricRow[] {
  const r = (t: string) => data.rssAroundLoad[t];
  const growth = row(
    data,
    'rss_after_load',
    'RSS 10 s after the throughput load ended, over RSS just before it',
    '%',
    (t) => r(t)?.growthPct,
    `<= +${GOALS.rssAfterLoadPct} %`,
    (v) => v <= GOALS.rssAfterLoadPct,
  );
  return [
    row(data, 'rss_before_load', 'RSS just before the throughput load (absolute)', 'MB', (t) => r(t)?.beforeMB),
    row(data, 'rss_10s_after_load', 'RSS 10 s after the throughput load ended (absolute)', 'MB', (t) => r(t)?.afterMB),
    // A ratio of two growth percentages says nothing: the bare proxy's figure is shown beside svc's.
    { ...growth, ratio: {} },
  ];
}
