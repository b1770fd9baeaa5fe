import { runLoad, type LoadResult, type LoadSpec } from '../load/http-load';
import { cpuMicros } from '../lib/proc';
import { round } from '../lib/stats';
import type { Target } from '../lib/targets';

/** A load phase with the target process's CPU time over it. */
export interface MeasuredLoad extends LoadResult {
  /** CPU µs of the proxy process (all threads) per completed request; null when nothing completed. */
  cpuPerRequestUs: number | null;
  /** Share of responses that were not 2xx or failed; a phase above 1 % is not trusted. */
  failureRate: number;
}

/** Runs one autocannon phase against `target` and divides its CPU time by the requests served. */
export async function measureLoad(
  target: Target,
  body: string,
  opts: Pick<LoadSpec, 'connections' | 'durationS' | 'rate'>,
  url = target.chatUrl,
): Promise<MeasuredLoad> {
  const before = cpuMicros(target.pid);
  const r = await runLoad({ url, headers: { 'content-type': 'application/json', ...target.headers }, body, ...opts });
  const cpu = cpuMicros(target.pid) - before;
  const ok = r.requests - r.non2xx;
  return {
    ...r,
    cpuPerRequestUs: ok > 0 ? round(cpu / ok, 1) : null,
    failureRate: r.requests + r.errors > 0 ? round((r.non2xx + r.errors) / (r.requests + r.errors), 4) : 1,
  };
}

/** Phase lengths; `--quick` shortens them. */
export interface Durations {
  /**
   * The first warm-up of a target, at full speed: long enough for the JIT to finish. After one
   * second, JavaScriptCore's JIT thread still took ~15 % of svc's CPU at 1,000 req/s (perf,
   * per thread); after 20 s, under 1 %. A phase measured before then charges compilation, a
   * one-off cost that grows with the amount of code, to every request.
   */
  settleS: number;
  warmS: number;
  phaseS: number;
}

/** Everything the throughput phases measure for one target. */
export interface ThroughputResult {
  cpuPerRequest: MeasuredLoad;
  rps64: MeasuredLoad;
  rps256: MeasuredLoad;
  cpuPerStream: MeasuredLoad;
  stripThinking?: MeasuredLoad;
  /** CPU per embeddings request (one 1,024-float vector) at a fixed rate. */
  cpuPerEmbedding?: MeasuredLoad;
}

/**
 * CPU per request, per 50-chunk stream and per embeddings request at a fixed rate (so every
 * target sees the same load and none is saturated), then requests/s at 64 and 256 connections at full speed.
 */
export async function throughputPhases(
  target: Target,
  bodies: { json: string; stream: string; streamStripThinking?: string; embeddings?: string },
  d: Durations,
): Promise<ThroughputResult> {
  await measureLoad(target, bodies.json, { connections: 16, durationS: d.settleS });
  await measureLoad(target, bodies.stream, { connections: 16, durationS: d.settleS });
  if (bodies.streamStripThinking) await measureLoad(target, bodies.streamStripThinking, { connections: 16, durationS: d.settleS / 2 });
  await measureLoad(target, bodies.json, { connections: 16, durationS: d.warmS });
  const cpuPerRequest = await measureLoad(target, bodies.json, { connections: 16, durationS: d.phaseS, rate: 1000 });
  const cpuPerStream = await measureLoad(target, bodies.stream, { connections: 16, durationS: d.phaseS, rate: 400 });
  let stripThinking: MeasuredLoad | undefined;
  if (bodies.streamStripThinking) {
    await measureLoad(target, bodies.streamStripThinking, { connections: 16, durationS: d.warmS });
    stripThinking = await measureLoad(target, bodies.streamStripThinking, { connections: 16, durationS: d.phaseS, rate: 400 });
  }
  let cpuPerEmbedding: MeasuredLoad | undefined;
  if (bodies.embeddings) {
    await measureLoad(target, bodies.embeddings, { connections: 16, durationS: d.warmS }, target.embeddingsUrl);
    cpuPerEmbedding = await measureLoad(
      target,
      bodies.embeddings,
      { connections: 16, durationS: d.phaseS, rate: 1000 },
      target.embeddingsUrl,
    );
  }
  const rps64 = await measureLoad(target, bodies.json, { connections: 64, durationS: d.phaseS });
  const rps256 = await measureLoad(target, bodies.json, { connections: 256, durationS: d.phaseS });
  return { cpuPerRequest, rps64, rps256, cpuPerStream, stripThinking, cpuPerEmbedding };
}
