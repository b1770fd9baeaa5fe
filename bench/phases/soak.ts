import { rssBytes } from '../lib/proc';
import type { Target } from '../lib/targets';
import { measureLoad } from './throughput';

/** RSS levels around a long mixed load. */
export interface SoakResult {
  warmupS: number;
  soakS: number;
  requests: number;
  failureRate: number;
  rssAfterWarmupMB: number;
  rssPeakDuringSoakMB: number;
  rssAfterSoakMB: number;
  /** (after soak - after warm-up) / after warm-up. */
  growth: number;
}

const MB = 1024 * 1024;

/**
 * Warm-up load, settle, read RSS; then the soak (alternating JSON and stream slices at a
 * moderate rate), settle, read RSS again. Both readings are taken idle, 2 s after the load.
 */
export async function soakPhase(
  target: Target,
  bodies: { json: string; stream: string },
  opts: { warmupS: number; soakS: number },
): Promise<SoakResult> {
  const slice = 10;
  await measureLoad(target, bodies.json, { connections: 32, durationS: Math.ceil(opts.warmupS / 2), rate: 1500 });
  await measureLoad(target, bodies.stream, { connections: 32, durationS: Math.ceil(opts.warmupS / 2), rate: 300 });
  await Bun.sleep(2000);
  const rssAfterWarmup = rssBytes(target.pid);
  let peak = rssAfterWarmup;
  let requests = 0;
  let failed = 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssBytes(target.pid));
  }, 500);
  try {
    const until = Date.now() + opts.soakS * 1000;
    for (let i = 0; Date.now() < until; i++) {
      const s = Math.max(1, Math.min(slice, Math.round((until - Date.now()) / 1000)));
      const r = await measureLoad(target, i % 2 === 0 ? bodies.json : bodies.stream, {
        connections: 32,
        durationS: s,
        rate: i % 2 === 0 ? 1500 : 300,
      });
      requests += r.requests;
      failed += r.non2xx + r.errors;
    }
  } finally {
    clearInterval(sampler);
  }
  await Bun.sleep(2000);
  const after = rssBytes(target.pid);
  return {
    warmupS: opts.warmupS,
    soakS: opts.soakS,
    requests,
    failureRate: requests > 0 ? Math.round((failed / requests) * 10000) / 10000 : 1,
    rssAfterWarmupMB: Math.round((rssAfterWarmup / MB) * 10) / 10,
    rssPeakDuringSoakMB: Math.round((peak / MB) * 10) / 10,
    rssAfterSoakMB: Math.round((after / MB) * 10) / 10,
    growth: Math.round(((after - rssAfterWarmup) / rssAfterWarmup) * 1000) / 1000,
  };
}
