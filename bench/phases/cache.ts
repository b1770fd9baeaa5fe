import { BENCH_MODEL } from '../servers/svc-config';
import type { Target } from '../lib/targets';
import { measureLoad, type Durations, type MeasuredLoad } from './throughput';

const messages = [{ role: 'user', content: 'Say hello.' }];
const cached = { svc_parameters: { cache: 'use' } };

/** The cache phase's bodies: one request asked again and again (hits after the first), and one with a new prompt each time (misses). */
export const CACHE_BODIES = {
  hitJson: JSON.stringify({ model: BENCH_MODEL, messages, max_tokens: 64, ...cached }),
  hitStream: JSON.stringify({ model: BENCH_MODEL, messages, max_tokens: 64, stream: true, ...cached }),
  // autocannon's `-I` puts a new id in place of `[<id>]` for every request: each one misses and is stored.
  miss: JSON.stringify({ model: BENCH_MODEL, messages: [{ role: 'user', content: 'Say hello [<id>].' }], max_tokens: 64, ...cached }),
};

/** svc's response cache under load: CPU per hit (JSON and stream) and per miss, in the rates of the bare proxy's JSON and stream phases. */
export interface CacheResult {
  hitJson: MeasuredLoad;
  hitStream: MeasuredLoad;
  miss: MeasuredLoad;
}

/**
 * The response-cache phase of an svc target (issue 45: "a hit costs less CPU than a bare
 * proxy's call"). A hit is measured at the load of the phase it is compared with: JSON at
 * 1,000 req/s, streams at 400/s (the stored answer replayed as a stream is the 50-chunk
 * stream's content), each after a warm-up at full speed; the first request of the warm-up
 * stores the entry. A miss is a new prompt per request: a lookup, the upstream call and a store.
 */
export async function cachePhase(target: Target, d: Durations): Promise<CacheResult> {
  await measureLoad(target, CACHE_BODIES.hitJson, { connections: 16, durationS: d.warmS * 2 });
  const hitJson = await measureLoad(target, CACHE_BODIES.hitJson, { connections: 16, durationS: d.phaseS, rate: 1000 });
  await measureLoad(target, CACHE_BODIES.hitStream, { connections: 16, durationS: d.warmS });
  const hitStream = await measureLoad(target, CACHE_BODIES.hitStream, { connections: 16, durationS: d.phaseS, rate: 400 });
  await measureLoad(target, CACHE_BODIES.miss, { connections: 16, durationS: d.warmS, idReplacement: true });
  const miss = await measureLoad(target, CACHE_BODIES.miss, { connections: 16, durationS: d.phaseS, rate: 1000, idReplacement: true });
  return { hitJson, hitStream, miss };
}
