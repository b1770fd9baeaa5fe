import { cacheRows } from './lib/cache-rows';
import { featureRows } from './lib/feature-rows';
import { systemRows } from './lib/system-rows';
import { familyRows, rssAroundLoadRows } from './lib/family-rows';
import type { RunData } from './lib/run-data';
import type { ImagesResult } from './phases/images';
import type { PeerResult } from './phases/peers';
import { round } from './lib/stats';
import { row, type Pick } from './lib/rows';
import { GOALS, JSON_CPU_TARGET, jsonCpuCheck, ratioAtMost } from './lib/goals';
import type { MetricRow } from './report';

/** Stream length the throughput phases use. */
const CHUNKS = 50;

/** The printed rows: each metric for the bare proxy and svc, with ratios and verdicts. */
export function buildRows(data: RunData): MetricRow[] {
  const tp = (t: string) => data.throughput[t];
  const ttfb = data.ttfb;
  const added = (t: string, p: 'p50' | 'p99', base: string) => (ttfb?.[t] && ttfb[base] ? ttfb[t]![p] - ttfb[base]![p] : null);
  const pluginPerChunk = (t: string) => {
    const on = tp(t)?.stripThinking?.cpuPerRequestUs;
    const off = tp(t)?.cpuPerStream.cpuPerRequestUs;
    return on != null && off != null ? (on - off) / CHUNKS : null;
  };
  const open = (n: string, t: string) => data.openStreams[n]?.[t];
  // The "10k" phase may hold fewer than 10,000 streams where the fd limit is lower (see the run's notes).
  const requested10k = Object.values(data.openStreams['10000'] ?? {})[0]?.requested ?? 10_000;
  const tenK = requested10k.toLocaleString('en-US');
  const rows: MetricRow[] = [
    row(data, 'cpu_per_request', 'CPU per JSON request', 'µs', (t) => tp(t)?.cpuPerRequest.cpuPerRequestUs, JSON_CPU_TARGET, jsonCpuCheck),
    // Redis + Postgres only: the fleet's shared Redis core is the scale limit of exact admission.
    row(
      data,
      'redis_cpu_per_request',
      'redis-server CPU per JSON request (its own server)',
      'µs',
      (t) => tp(t)?.backingPerRequest?.redisUs,
      `<= ${GOALS.redisUs} µs`,
      (v) => v <= GOALS.redisUs,
    ),
    row(
      data,
      'pg_cpu_per_request',
      "Postgres CPU per JSON request (svc's database)",
      'µs',
      (t) => tp(t)?.backingPerRequest?.pgUs,
      `<= ${GOALS.pgUs} µs`,
      (v) => v <= GOALS.pgUs,
    ),
    ...systemRows(data),
    row(
      data,
      'redis_commands_per_request',
      'Redis commands per JSON request (inside scripts too)',
      'commands',
      (t) => tp(t)?.backingPerRequest?.redisCommands,
    ),
    row(
      data,
      'cpu_per_embedding',
      'CPU per embeddings request',
      'µs',
      (t) => tp(t)?.cpuPerEmbedding?.cpuPerRequestUs,
      `${JSON_CPU_TARGET} (as JSON)`,
      jsonCpuCheck,
    ),
    row(
      data,
      'cpu_per_stream',
      'CPU per 50-chunk stream, upstream reports usage',
      'µs',
      (t) => tp(t)?.cpuPerStream.cpuPerRequestUs,
      `ratio <= ${GOALS.streamUsageRatio}`,
      ratioAtMost(GOALS.streamUsageRatio),
    ),
    row(
      data,
      'cpu_per_stream_counted',
      'CPU per 50-chunk stream, upstream reports no usage (svc counts)',
      'µs',
      (t) => tp(t)?.cpuPerStreamCounted?.cpuPerRequestUs,
      `ratio <= ${GOALS.streamCountedRatio}`,
      ratioAtMost(GOALS.streamCountedRatio),
    ),
    ...cacheRows(data),
    ...featureRows(data),
    row(
      data,
      'ttfb_added_p50_direct',
      'added TTFB p50 vs direct',
      'ms',
      (t) => added(t, 'p50', 'direct'),
      `<= ${GOALS.ttfbAddedP50Ms} ms`,
      (v) => v <= GOALS.ttfbAddedP50Ms,
    ),
    row(data, 'ttfb_added_p99_direct', 'added TTFB p99 vs direct', 'ms', (t) => added(t, 'p99', 'direct')),
    row(data, 'ttfb_added_p50_bare', 'TTFB p50 minus bare p50', 'ms', (t) => (t === 'bare' ? 0 : added(t, 'p50', 'bare'))),
    row(data, 'ttfb_added_p99_bare', 'TTFB p99 minus bare p99', 'ms', (t) => (t === 'bare' ? 0 : added(t, 'p99', 'bare'))),
    row(data, 'rps_64', 'requests/s, 64 connections', 'req/s', (t) => tp(t)?.rps64.rps, RPS_TARGET, rpsCheck),
    row(data, 'rps_256', 'requests/s, 256 connections', 'req/s', (t) => tp(t)?.rps256.rps, RPS_TARGET, rpsCheck),
    row(
      data,
      'p99_json_64',
      'p99 latency at saturation, JSON, 64 connections',
      'ms',
      (t) => tp(t)?.rps64.latencyMs.p99,
      `ratio <= ${GOALS.p99Ratio}`,
      ratioAtMost(GOALS.p99Ratio),
    ),
    row(
      data,
      'p99_stream_64',
      'p99 latency at saturation, 50-chunk streams, 64 connections',
      'ms',
      (t) => tp(t)?.streams64?.latencyMs.p99,
      `ratio <= ${GOALS.p99Ratio}`,
      ratioAtMost(GOALS.p99Ratio),
    ),
    row(data, 'eld_p99_json_1000', 'event-loop delay p99, JSON at 1,000 req/s', 'ms', (t) => tp(t)?.eventLoop?.json1000?.p99Ms),
    row(
      data,
      'eld_max_json_1000',
      'event-loop delay max (bucket bound), JSON at 1,000 req/s',
      'ms',
      (t) => tp(t)?.eventLoop?.json1000?.maxMs,
    ),
    row(data, 'eld_p99_json_64', 'event-loop delay p99, JSON at 64 connections', 'ms', (t) => tp(t)?.eventLoop?.json64?.p99Ms),
    row(data, 'eld_max_json_64', 'event-loop delay max (bucket bound), JSON at 64', 'ms', (t) => tp(t)?.eventLoop?.json64?.maxMs),
    row(data, 'eld_p99_stream_64', 'event-loop delay p99, streams at 64 connections', 'ms', (t) => tp(t)?.eventLoop?.streams64?.p99Ms),
    row(data, 'eld_max_stream_64', 'event-loop delay max (bucket bound), streams at 64', 'ms', (t) => tp(t)?.eventLoop?.streams64?.maxMs),
    row(data, 'cpu_per_chunk_plain', 'CPU per chunk, zero-copy stream', 'µs', (t) =>
      nullable(tp(t)?.cpuPerStream.cpuPerRequestUs, (x) => x / CHUNKS),
    ),
    row(data, 'cpu_per_chunk_strip', 'CPU per chunk, strip_thinking on', 'µs', (t) =>
      t === 'bare'
        ? nullable(tp(t)?.cpuPerStream.cpuPerRequestUs, (x) => x / CHUNKS)
        : nullable(tp(t)?.stripThinking?.cpuPerRequestUs, (x) => x / CHUNKS),
    ),
    row(
      data,
      'plugin_cpu_per_chunk',
      'transform cost per chunk (on - off)',
      'µs',
      (t) => (t === 'bare' ? null : pluginPerChunk(t)),
      '<= 5 µs',
      (v) => v <= 5,
    ),
    row(
      data,
      'rss_start',
      'RSS idle right after start (fresh data dir, no traffic)',
      'MB',
      (t) => data.idleRssMB[t],
      `embedded <= ${GOALS.rssStartMB} MB`,
      (v, _, __, b) => (b === 'memory+pglite' ? v <= GOALS.rssStartMB : null),
    ),
    ...rssAroundLoadRows(data),
    row(data, 'rss_idle', 'RSS idle before 1k streams (absolute)', 'MB', (t) => open('1000', t)?.idleRssMB),
    row(data, 'rss_1k', 'RSS holding 1,000 streams (absolute)', 'MB', (t) => open('1000', t)?.holdingRssMB),
    // The target is checked against the growth: svc's idle RSS is mostly PGlite's WASM heap, a
    // fixed cost of the embedded backend that holding streams does not change.
    row(
      data,
      'rss_growth_1k',
      'RSS growth holding 1,000 streams (holding - idle)',
      'MB',
      (t) => open('1000', t)?.growthMB,
      '<= 100 MB growth',
      (v) => v <= 100,
    ),
    row(data, 'open_1k', 'streams open of 1,000', 'streams', (t) => open('1000', t)?.opened),
    row(
      data,
      'rss_10k',
      `RSS holding ${tenK} streams (absolute)`,
      'MB',
      (t) => open('10000', t)?.holdingRssMB,
      `embedded <= ${GOALS.rss10kMB} MB`,
      (v, _, __, b) => (b === 'memory+pglite' ? v <= GOALS.rss10kMB : null),
    ),
    row(data, 'rss_growth_10k', `RSS growth holding ${tenK} streams`, 'MB', (t) => open('10000', t)?.growthMB),
    row(
      data,
      'open_10k',
      `streams open of ${tenK}`,
      'streams',
      (t) => open('10000', t)?.opened,
      'all open',
      (v) => v >= requested10k,
    ),
    row(
      data,
      'upstream_peak_10k',
      'upstream streams at once (10k run)',
      'streams',
      (t) => open('10000', t)?.upstreamPeakOpen,
      '> 256',
      (v) => v > 256,
    ),
  ];
  rows.push(...familyRows(data), ...imageRows(data), ...peerRows(data));
  if (data.soak) {
    const s = data.soak;
    rows.push({
      id: 'soak_rss_growth',
      label: `RSS growth after ${s.soakS} s soak (${s.rssAfterWarmupMB} -> ${s.rssAfterSoakMB} MB)`,
      unit: '%',
      bare: null,
      svc: { 'memory+pglite': round(s.growth * 100, 1) },
      ratio: {},
      target: '<= 10 %',
      pass: { 'memory+pglite': s.growth <= 0.1 },
    });
  }
  return rows;
}

/** Requests/s against the bare proxy: 0.67x on the embedded backends, 0.5x on Redis + Postgres (two round trips a request). */
const RPS_TARGET = 'ratio >= 0.67 embedded, >= 0.5 redis+postgres';
const rpsCheck = (_: number, __: number | null, r: number | null, backend: string) =>
  r != null && r >= (backend === 'memory+pglite' ? 0.67 : 0.5);

/** The images phase: generation CPU, the largest accepted upload through the proxy and in isolation. */
function imageRows(data: RunData): MetricRow[] {
  const img = (t: string) => data.images[t];
  const edit = (t: string) => img(t)?.largestEdit;
  const inputMB = Object.values(data.images).find((r) => r.largestEdit)?.largestEdit?.inputMB;
  const size = inputMB ? `${inputMB} MB` : 'largest';
  const rows = [
    row(data, 'image_gen_cpu', 'CPU per image generation (1024 x 1024 PNG, 1.2 MB)', 'µs', (t) => img(t)?.generation?.cpuPerRequestUs),
    row(data, 'image_edit_ms', `image edit, ${size} upload, p50`, 'ms', (t) => edit(t)?.p50Ms),
    row(data, 'image_edit_cpu', `CPU per image edit, ${size} upload`, 'ms', (t) => edit(t)?.cpuPerEditMs),
    row(data, 'image_edit_peak_rss', `peak RSS growth, image edit with a ${size} upload`, 'MB', (t) => edit(t)?.peakGrowthMB),
  ];
  const v = data.imageValidation;
  if (v) {
    // Measured once, in its own process: the same code on every backend, shown under the first.
    const only =
      (value: number): Pick =>
      (t) =>
        t === `svc:${data.backends[0]}` ? value : null;
    const mb = v.inputBytes / (1024 * 1024);
    rows.push(
      row(data, 'image_validation_ms_per_mb', `image validation per MB (in isolation, ${round(mb, 1)} MB PNG)`, 'ms/MB', only(v.ms / mb)),
      row(data, 'image_validation_peak_rss', 'peak RSS growth validating it (in isolation)', 'MB', only(v.peakGrowthMB)),
    );
  }
  return rows;
}

function nullable(x: number | null | undefined, f: (x: number) => number) {
  return x == null ? null : f(x);
}

/** With --peers: each peer's CPU per JSON request and per stream, its ratio to svc's (memory+pglite) as the ratio column. */
function peerRows(data: RunData): MetricRow[] {
  const rows: MetricRow[] = [];
  const embedded = data.backends.includes('memory+pglite') ? 'memory+pglite' : null;
  for (const [name, p] of Object.entries(data.peers ?? {}))
    for (const kind of ['json', 'stream'] as const) {
      const cpu = p.cpuPerRequestUs[kind];
      const r = p.cpuRatio[kind];
      const target = p.target;
      rows.push({
        id: `peer_${name}_${kind}`,
        label: `${name} ${p.version} on ${p.runtime}: CPU per ${kind === 'json' ? 'JSON request' : '50-chunk stream'} (ratio: ${name} / svc)`,
        unit: 'µs',
        bare: null,
        svc: embedded ? { [embedded]: cpu } : {},
        ratio: embedded ? { [embedded]: r } : {},
        target: target == null ? 'none set (issue 50 names none for this peer)' : `${name} / svc >= ${target}`,
        pass: embedded ? { [embedded]: r == null || target == null ? null : r >= target } : {},
      });
    }
  return rows;
}
