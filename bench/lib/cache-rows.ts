import type { MetricRow } from '../report';
import type { RunData } from './run-data';
import { GOALS } from './goals';
import { row } from './rows';
import { ratio } from './stats';

const below = (_: number, __: number | null, r: number | null) => r != null && r < GOALS.cacheHitRatio;

/**
 * The response cache's rows (bench/phases/cache.ts). The bare proxy has no cache: its figure
 * in each row is its own call of the same kind from the throughput phases (a JSON request at
 * 1,000 req/s, a 50-chunk stream at 400/s), so the ratio is svc's hit over proxying the call.
 */
export function cacheRows(data: RunData): MetricRow[] {
  const tp = (t: string) => data.throughput[t];
  const hit = `ratio < ${GOALS.cacheHitRatio} (a hit is cheaper than proxying)`;
  return [
    row(
      data,
      'cpu_per_cache_hit_json',
      'CPU per response-cache hit, JSON (bare: a proxied JSON request)',
      'µs',
      (t) => (t === 'bare' ? tp(t)?.cpuPerRequest.cpuPerRequestUs : data.cache[t]?.hitJson.cpuPerRequestUs),
      hit,
      below,
    ),
    row(
      data,
      'cpu_per_cache_hit_stream',
      'CPU per response-cache hit replayed as a stream (bare: a proxied 50-chunk stream)',
      'µs',
      (t) => (t === 'bare' ? tp(t)?.cpuPerStream.cpuPerRequestUs : data.cache[t]?.hitStream.cpuPerRequestUs),
      hit,
      below,
    ),
    // svc's hit over svc's own proxied call of the same kind: what the cache saves a client of svc.
    row(data, 'cache_hit_over_svc_json', "CPU of a JSON hit over svc's own proxied JSON request", 'x', (t) =>
      t === 'bare' ? null : ratio(data.cache[t]?.hitJson.cpuPerRequestUs, tp(t)?.cpuPerRequest.cpuPerRequestUs),
    ),
    row(data, 'cache_hit_over_svc_stream', "CPU of a stream hit over svc's own proxied 50-chunk stream", 'x', (t) =>
      t === 'bare' ? null : ratio(data.cache[t]?.hitStream.cpuPerRequestUs, tp(t)?.cpuPerStream.cpuPerRequestUs),
    ),
    row(
      data,
      'cpu_per_cache_miss',
      'CPU per response-cache miss, JSON: lookup, upstream call, store (bare: a proxied JSON request)',
      'µs',
      (t) => (t === 'bare' ? tp(t)?.cpuPerRequest.cpuPerRequestUs : data.cache[t]?.miss.cpuPerRequestUs),
    ),
  ];
}
