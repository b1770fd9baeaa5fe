/**
 * The targets, in one place: issue 50's ("Performance, round 3") where it sets one, issue 38's
 * for the rows it does not restate (p99 at saturation, added TTFB, streams svc counts itself).
 * The rows of bench/metrics.ts and bench/lib/*-rows.ts check against these, and
 * docs/benchmarks.md states them. Ratios are svc / bare proxy from the same run, CPU of svc's
 * process (on Redis + Postgres, redis-server's and Postgres's CPU are reported beside it).
 */
export const GOALS = {
  /** CPU per JSON request: the pipeline over a pass-through, by backend. */
  jsonCpuRatio: { 'memory+pglite': 2.0, 'redis+postgres': 2.3 } as Record<string, number>,
  /** CPU per 50-chunk stream when the upstream reports usage (the zero-copy path), both backends. */
  streamUsageRatio: 3.0,
  /** CPU per 50-chunk stream when svc counts the tokens itself (issue 38; issue 50 sets none). */
  streamCountedRatio: 2.0,
  /** CPU per /responses stream of 50 text deltas. */
  responsesStreamRatio: 3.0,
  /** CPU per media job (submit, polls, download) on the embedded default. */
  jobRatio: 8.0,
  /** p99 latency at saturation (64 connections, JSON and streams). */
  p99Ratio: 2.5,
  /** Added time to first byte at one connection, p50, over the upstream directly. */
  ttfbAddedP50Ms: 0.5,
  /** redis-server CPU per JSON request, µs (its own server). */
  redisUs: 25,
  /** CPU of svc's Postgres backends per JSON request, µs. */
  pgUs: 10,
  /** The whole system on Redis + Postgres (svc, redis-server, svc's Postgres backends) over the bare proxy. */
  system: { jsonRatio: 3.0, streamRatio: 3.5 },
  /** CPU per response-cache hit (JSON and stream) over the bare proxy's call of the same kind: cheaper than proxying. */
  cacheHitRatio: 1.0,
  /** Embedded RSS right after start, MB. */
  rssStartMB: 120,
  /** Embedded RSS holding 10,000 open streams, MB. */
  rss10kMB: 500,
  /** RSS 10 s after the throughput load ends, against just before it: at most this much higher, %. */
  rssAfterLoadPct: 25,
};

/** The words of the JSON CPU target, for the rows that use it. */
export const JSON_CPU_TARGET = `ratio <= ${GOALS.jsonCpuRatio['memory+pglite']} embedded, <= ${GOALS.jsonCpuRatio['redis+postgres']} redis+postgres`;

/** Whether a JSON-like CPU ratio meets the target of its backend. */
export const jsonCpuCheck = (_: number, __: number | null, r: number | null, backend: string) =>
  r != null && r <= (GOALS.jsonCpuRatio[backend] ?? GOALS.jsonCpuRatio['memory+pglite']!);

/** A check of `ratio <= limit`. */
export const ratioAtMost = (limit: number) => (_: number, __: number | null, r: number | null) => r != null && r <= limit;
