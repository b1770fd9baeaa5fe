import { runLoad, type LoadResult, type LoadSpec } from '../load/http-load';
import { delayBetween, scrapeDelay, type EventLoopWindow } from '../lib/event-loop';
import { cpuMicros } from '../lib/proc';
import { ledgerSettled } from '../lib/ledger-backlog';
import { round } from '../lib/stats';
import type { Target, UpstreamControl } from '../lib/targets';
import type { BackingCpu } from '../lib/backing-cpu';

/** A load phase with the target process's CPU time over it. */
export interface MeasuredLoad extends LoadResult {
  /** CPU µs of the proxy process (all threads) per completed request; null when nothing completed. */
  cpuPerRequestUs: number | null;
  /** Share of responses that were not 2xx or failed; a phase above 1 % is not trusted. */
  failureRate: number;
  /** `performance.now()` when the last request completed (before the ledger's drain). */
  endedAt: number;
  /** How long svc's ledger took after the load to write the phase's settlements (0 for a target without a ledger). */
  ledgerDrainMs: number;
  /** How long the phase waited, before its window, for the ledger to write what earlier phases left. */
  priorDrainMs: number;
}

/**
 * Runs one autocannon phase against `target` and divides its CPU time by the requests served.
 * The window starts once svc's ledger has written what earlier phases left, and ends once it
 * has written this phase's settlements (bench/lib/ledger-backlog.ts), so each request is charged
 * its own ledger row exactly once.
 */
export async function measureLoad(
  target: Target,
  body: string,
  opts: Pick<LoadSpec, 'connections' | 'durationS' | 'rate' | 'idReplacement'>,
  url = target.chatUrl,
): Promise<MeasuredLoad> {
  const priorDrainMs = await ledgerSettled(target.metricsUrl);
  const before = cpuMicros(target.pid);
  const r = await runLoad({ url, headers: { 'content-type': 'application/json', ...target.headers }, body, ...opts });
  const endedAt = performance.now();
  const ledgerDrainMs = await ledgerSettled(target.metricsUrl);
  const cpu = cpuMicros(target.pid) - before;
  const ok = r.requests - r.non2xx;
  return {
    ...r,
    cpuPerRequestUs: ok > 0 ? round(cpu / ok, 1) : null,
    failureRate: r.requests + r.errors > 0 ? round((r.non2xx + r.errors) / (r.requests + r.errors), 4) : 1,
    endedAt,
    ledgerDrainMs,
    priorDrainMs,
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
  /** On Redis + Postgres: redis-server's and Postgres's CPU per request over the cpuPerRequest phase. */
  backingPerRequest?: BackingCpu | null;
  /** The same over the cpuPerStream phase, per stream. */
  backingPerStream?: BackingCpu | null;
  rps64: MeasuredLoad;
  rps256: MeasuredLoad;
  /** 50-chunk streams whose upstream reports usage when asked (svc asks: the zero-copy path). */
  cpuPerStream: MeasuredLoad;
  /** The same streams with an upstream that never reports usage: svc counts the tokens itself. */
  cpuPerStreamCounted?: MeasuredLoad;
  stripThinking?: MeasuredLoad;
  /** CPU per embeddings request (one 1,024-float vector) at a fixed rate. */
  cpuPerEmbedding?: MeasuredLoad;
  /** 50-chunk streams at 64 connections, no rate cap (the JSON one is rps64): p99 latency at saturation. */
  streams64?: MeasuredLoad;
  /** Event-loop delay of the proxy over the saturation phases (null where it has no histogram). */
  eventLoop?: { json1000: EventLoopWindow | null; json64: EventLoopWindow | null; streams64: EventLoopWindow | null };
}

/** A load phase with the proxy's event-loop delay over it (scraped before and after). */
async function withEventLoop(target: Target, run: () => Promise<MeasuredLoad>): Promise<[MeasuredLoad, EventLoopWindow | null]> {
  const before = await scrapeDelay(target.metricsUrl);
  const r = await run();
  return [r, delayBetween(before, await scrapeDelay(target.metricsUrl))];
}

/**
 * CPU per request, per 50-chunk stream (with `upstream`, also from an upstream that reports no
 * usage) and per embeddings request at a fixed rate (so every
 * target sees the same load and none is saturated), then at full speed: requests/s and p99 latency at
 * 64 connections (JSON, then 50-chunk streams) with the event-loop delay over each, and
 * requests/s at 256 connections.
 */
export async function throughputPhases(
  target: Target,
  bodies: { json: string; stream: string; streamStripThinking?: string; embeddings?: string },
  d: Durations,
  upstream?: UpstreamControl,
): Promise<ThroughputResult> {
  await measureLoad(target, bodies.json, { connections: 16, durationS: d.settleS });
  await measureLoad(target, bodies.stream, { connections: 16, durationS: d.settleS });
  if (bodies.streamStripThinking) await measureLoad(target, bodies.streamStripThinking, { connections: 16, durationS: d.settleS / 2 });
  await measureLoad(target, bodies.json, { connections: 16, durationS: d.warmS });
  // The event-loop delay at 1,000 req/s: far from saturation, a delay of more than a few ms is a
  // task that ran that long without yielding, not requests waiting their turn.
  const backingBefore = await target.backing?.read();
  const [cpuPerRequest, json1000] = await withEventLoop(target, () =>
    measureLoad(target, bodies.json, { connections: 16, durationS: d.phaseS, rate: 1000 }),
  );
  const served = cpuPerRequest.requests - cpuPerRequest.non2xx;
  const backingPerRequest = backingBefore && served > 0 ? await target.backing!.perRequest(backingBefore, served) : null;
  const streamBackingBefore = await target.backing?.read();
  const cpuPerStream = await measureLoad(target, bodies.stream, { connections: 16, durationS: d.phaseS, rate: 400 });
  const streamsServed = cpuPerStream.requests - cpuPerStream.non2xx;
  const backingPerStream =
    streamBackingBefore && streamsServed > 0 ? await target.backing!.perRequest(streamBackingBefore, streamsServed) : null;
  let cpuPerStreamCounted: MeasuredLoad | undefined;
  if (upstream) {
    await upstream.shape(50, 0, 'never');
    try {
      await measureLoad(target, bodies.stream, { connections: 16, durationS: d.warmS });
      cpuPerStreamCounted = await measureLoad(target, bodies.stream, { connections: 16, durationS: d.phaseS, rate: 400 });
    } finally {
      await upstream.shape(50, 0);
    }
  }
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
  // Saturation: no rate cap. Requests/s, and p99 latency with the event-loop delay behind it.
  const [rps64, json64] = await withEventLoop(target, () => measureLoad(target, bodies.json, { connections: 64, durationS: d.phaseS }));
  const [streams64, streamLoop] = await withEventLoop(target, () =>
    measureLoad(target, bodies.stream, { connections: 64, durationS: d.phaseS }),
  );
  const rps256 = await measureLoad(target, bodies.json, { connections: 256, durationS: d.phaseS });
  return {
    cpuPerRequest,
    backingPerRequest,
    backingPerStream,
    rps64,
    rps256,
    cpuPerStream,
    cpuPerStreamCounted,
    stripThinking,
    cpuPerEmbedding,
    streams64,
    eventLoop: { json1000, json64, streams64: streamLoop },
  };
}
