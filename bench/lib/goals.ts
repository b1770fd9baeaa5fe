/**
 * The targets of issue 38 ("Performance, restated"), in one place: the rows of bench/metrics.ts
 * and bench/lib/family-rows.ts check against these, and docs/benchmarks.md states them.
 * Ratios are svc / bare proxy from the same run, CPU of svc's process (on Redis + Postgres,
 * redis-server's and Postgres's CPU are reported beside it, not added).
 */
export const GOALS = {
  /** CPU per JSON request: the pipeline over a pass-through, by backend. */
  jsonCpuRatio: { 'memory+pglite': 2.0, 'redis+postgres': 2.5 } as Record<string, number>,
  /** CPU per 50-chunk stream when the upstream reports usage (the zero-copy path). */
  streamUsageRatio: 1.5,
  /** CPU per 50-chunk stream when svc counts the tokens itself. */
  streamCountedRatio: 2.0,
  /** p99 latency at saturation (64 connections, JSON and streams). */
  p99Ratio: 2.5,
  /** Added time to first byte at one connection, p50, over the upstream directly. */
  ttfbAddedP50Ms: 0.5,
  /** redis-server CPU per JSON request, µs (its own server). */
  redisUs: 40,
  /** CPU per response-cache hit (JSON and stream) over the bare proxy's call of the same kind: cheaper than proxying. */
  cacheHitRatio: 1.0,
  /** Embedded RSS right after start, MB. */
  rssStartMB: 150,
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
