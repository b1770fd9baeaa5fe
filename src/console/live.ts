import { addBucket, quantileMs, type Labels, type Metric } from './quantile';
import { pluginCountsOf, pluginRows, type LivePlugin, type PluginCounts, type PluginInfo } from './live-plugins';

export { quantileMs, type Metric } from './quantile';

/** The metrics the live figures read (reading only these skips the collectors that query the database). */
export const LIVE_METRICS = [
  'svc_http_requests_total',
  'svc_http_request_duration_seconds',
  'svc_upstream_response_seconds',
  'svc_upstream_errors_total',
  'svc_open_streams',
  'svc_rate_limit_refusals_total',
  'svc_abuse_blocks_total',
  'svc_plugin_calls_total',
  'svc_plugin_duration_seconds',
  'svc_plugin_refusals_total',
  'svc_plugin_errors_total',
] as const;

/** Routes left out of the live request figures: the console's own polling, probes and scrapes. */
const SELF_ROUTES = /^\/(console|metrics|health|ready)(\/|$)/;

/** Cumulative counts read from the metrics registry at one instant. */
export interface MetricsSnapshot {
  at: number;
  requests: number;
  serverErrors: number;
  /** Request latency histogram: cumulative count per upper bound (seconds, Infinity last). */
  latency: Map<number, number>;
  upstream: Map<string, { calls: number; errors: Map<string, number>; latency: Map<number, number> }>;
  openStreams: number;
  rateLimitRefusals: number;
  abuseBlocks: number;
  plugins: Map<string, PluginCounts>;
}

/** The live page's figures over the interval between two snapshots. */
export interface LiveSummary {
  at: string;
  windowSeconds: number;
  requestsPerSecond: number;
  serverErrorsPerSecond: number;
  p50Ms: number | null;
  p99Ms: number | null;
  openStreams: number;
  rateLimitRefusals: number;
  abuseBlocks: number;
  providers: {
    id: string;
    /** The built-in simulator (in-process, no upstream): the page labels it. */
    simulated: boolean;
    callsPerSecond: number;
    errors: number;
    errorsByReason: Record<string, number>;
    p50Ms: number | null;
    p99Ms: number | null;
  }[];
  plugins: LivePlugin[];
}

const sum = (m: Metric | undefined, keep: (labels: Labels) => boolean = () => true) =>
  (m?.values ?? []).reduce((n, v) => (keep(v.labels) ? n + v.value : n), 0);

/** Reads a snapshot out of the registry's JSON form (prom-client's getMetricsAsJSON). */
export function snapshotOf(metrics: Metric[], at: number): MetricsSnapshot {
  const byName = new Map(metrics.map((m) => [m.name, m]));
  const notSelf = (l: Labels) => !SELF_ROUTES.test(String(l.route ?? ''));
  const latency = new Map<number, number>();
  for (const v of byName.get('svc_http_request_duration_seconds')?.values ?? [])
    if (v.metricName?.endsWith('_bucket') && notSelf(v.labels)) addBucket(latency, v.labels.le, v.value);
  const upstream: MetricsSnapshot['upstream'] = new Map();
  const providerOf = (id: string) => {
    let p = upstream.get(id);
    if (!p) upstream.set(id, (p = { calls: 0, errors: new Map(), latency: new Map() }));
    return p;
  };
  for (const v of byName.get('svc_upstream_response_seconds')?.values ?? []) {
    const p = providerOf(String(v.labels.provider));
    if (v.metricName?.endsWith('_count')) p.calls += v.value;
    if (v.metricName?.endsWith('_bucket')) addBucket(p.latency, v.labels.le, v.value);
  }
  for (const v of byName.get('svc_upstream_errors_total')?.values ?? []) {
    const p = providerOf(String(v.labels.provider));
    const reason = String(v.labels.reason);
    p.errors.set(reason, (p.errors.get(reason) ?? 0) + v.value);
  }
  const requests = byName.get('svc_http_requests_total');
  return {
    at,
    requests: sum(requests, notSelf),
    serverErrors: sum(requests, (l) => notSelf(l) && String(l.status).startsWith('5')),
    latency,
    upstream,
    openStreams: sum(byName.get('svc_open_streams')),
    rateLimitRefusals: sum(byName.get('svc_rate_limit_refusals_total')),
    abuseBlocks: sum(byName.get('svc_abuse_blocks_total')),
    plugins: pluginCountsOf(byName),
  };
}

function mapDiff(a: Map<string, number>, b: Map<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of b) if (v - (a.get(k) ?? 0) > 0) out[k] = v - (a.get(k) ?? 0);
  return out;
}

/** The live figures between snapshot `a` and the later `b`, with a row for each plugin of `plugins` (default: each metered one). */
export function summarize(a: MetricsSnapshot, b: MetricsSnapshot, plugins?: PluginInfo[]): LiveSummary {
  const seconds = Math.max((b.at - a.at) / 1000, 0.001);
  const rate = (n: number) => Math.round((n / seconds) * 100) / 100;
  const providers = [...b.upstream].map(([id, p]) => {
    const before = a.upstream.get(id) ?? { calls: 0, errors: new Map<string, number>(), latency: new Map<number, number>() };
    const errorsByReason = mapDiff(before.errors, p.errors);
    return {
      id,
      simulated: false,
      callsPerSecond: rate(p.calls - before.calls),
      errors: Object.values(errorsByReason).reduce((n, v) => n + v, 0),
      errorsByReason,
      p50Ms: quantileMs(before.latency, p.latency, 0.5),
      p99Ms: quantileMs(before.latency, p.latency, 0.99),
    };
  });
  return {
    at: new Date(b.at).toISOString(),
    windowSeconds: Math.round(seconds * 10) / 10,
    requestsPerSecond: rate(b.requests - a.requests),
    serverErrorsPerSecond: rate(b.serverErrors - a.serverErrors),
    p50Ms: quantileMs(a.latency, b.latency, 0.5),
    p99Ms: quantileMs(a.latency, b.latency, 0.99),
    openStreams: b.openStreams,
    rateLimitRefusals: b.rateLimitRefusals - a.rateLimitRefusals,
    abuseBlocks: b.abuseBlocks - a.abuseBlocks,
    providers: providers.sort((x, y) => x.id.localeCompare(y.id)),
    plugins: pluginRows(a.plugins, b.plugins, plugins),
  };
}
