import type { RunData } from './run-data';
import { row } from './rows';
import type { MetricRow } from '../report';
import { GOALS } from './goals';

const SYSTEM_GOALS = GOALS.system;
const SYSTEM = 'redis+postgres';

/**
 * The rows of what the whole system spends per request: on Redis + Postgres svc's CPU plus
 * redis-server's and its Postgres backends' over the same phase (bench/lib/backing-cpu.ts);
 * embedded, svc's process is the system (PGlite runs inside it). And the requests a second one
 * Redis core admits for a fleet: 1 s over redis-server's CPU per JSON request.
 */
export function systemRows(data: RunData): MetricRow[] {
  const tp = (t: string) => data.throughput[t];
  const system = (t: string, phase: 'json' | 'stream') => {
    const r = tp(t);
    const own = phase === 'json' ? r?.cpuPerRequest.cpuPerRequestUs : r?.cpuPerStream.cpuPerRequestUs;
    if (own == null || t !== `svc:${SYSTEM}`) return own;
    const backing = phase === 'json' ? r?.backingPerRequest : r?.backingPerStream;
    return backing ? own + backing.redisUs + backing.pgUs : null;
  };
  const atMost = (limit: number) => (_: number, __: number | null, ratio: number | null, backend: string) =>
    backend === SYSTEM ? ratio != null && ratio <= limit : null;
  return [
    row(
      data,
      'system_cpu_per_request',
      'system CPU per JSON request (svc + redis-server + Postgres backends)',
      'µs',
      (t) => system(t, 'json'),
      `ratio <= ${SYSTEM_GOALS.jsonRatio} ${SYSTEM}`,
      atMost(SYSTEM_GOALS.jsonRatio),
    ),
    row(
      data,
      'system_cpu_per_stream',
      'system CPU per 50-chunk stream (svc + redis-server + Postgres backends)',
      'µs',
      (t) => system(t, 'stream'),
      `ratio <= ${SYSTEM_GOALS.streamRatio} ${SYSTEM}`,
      atMost(SYSTEM_GOALS.streamRatio),
    ),
    row(
      data,
      'redis_cpu_per_stream',
      'redis-server CPU per 50-chunk stream (its own server)',
      'µs',
      (t) => tp(t)?.backingPerStream?.redisUs,
    ),
    row(data, 'pg_cpu_per_stream', "Postgres CPU per 50-chunk stream (svc's database)", 'µs', (t) => tp(t)?.backingPerStream?.pgUs),
    row(data, 'redis_requests_per_core', 'JSON requests a second one Redis core admits (1 s / its CPU per request)', 'req/s', (t) => {
      const us = tp(t)?.backingPerRequest?.redisUs;
      return us ? 1e6 / us : null;
    }),
  ];
}
