import { cpuMicros, peakRssBytes, resetPeakRss, rssBytes } from '../lib/proc';
import { percentile, round } from '../lib/stats';
import type { Target } from '../lib/targets';
import { BENCH_EDIT_MODEL, BENCH_IMAGE_MODEL } from '../servers/svc-config';
import { measureLoad, type Durations, type MeasuredLoad } from './throughput';

/** What the images phase measured on one target. */
export interface ImagesResult {
  /** POST /images/generations (one 1024 x 1024 PNG, ~1.2 MB, answered as base64) at 40 a second. */
  generation: MeasuredLoad | null;
  /** POST /image/edit with the largest accepted upload (multipart), a few in a row. */
  largestEdit: {
    inputMB: number;
    edits: number;
    statuses: number[];
    p50Ms: number;
    /** CPU of the proxy process per edit, all threads (libvips decodes on its own). */
    cpuPerEditMs: number;
    /** Peak RSS (the kernel's high-water mark, reset before) over the RSS before the edits. */
    peakGrowthMB: number;
  } | null;
}

const MB = 1024 * 1024;
export const GENERATION_BODY = JSON.stringify({ model: BENCH_IMAGE_MODEL, prompt: 'a quiet harbour at dawn' });

/**
 * Image generation at a fixed rate (CPU per request, as the throughput phases), then `edits`
 * edits in a row with `upload` (the largest accepted input) as a multipart file: latency, CPU
 * per edit and the proxy's peak RSS over them.
 */
export async function imagesPhase(
  target: Target,
  upload: Buffer,
  d: Durations,
  { edits, warm }: { edits: number; warm: boolean },
): Promise<ImagesResult> {
  let generation: MeasuredLoad | null = null;
  if (target.imagesUrl) {
    const spec = { connections: 4, rate: 40 };
    // --quick skips the warm-up: the route then compiles during the first second of the phase.
    if (warm) await measureLoad(target, GENERATION_BODY, { ...spec, durationS: d.warmS }, target.imagesUrl);
    generation = await measureLoad(target, GENERATION_BODY, { ...spec, durationS: d.phaseS }, target.imagesUrl);
  }
  if (!target.imageEditUrl) return { generation, largestEdit: null };
  const file = new File([new Uint8Array(upload)], 'largest.png', { type: 'image/png' });
  const edit = async () => {
    const form = new FormData();
    form.append('image', file);
    form.append('prompt', 'make the sky orange');
    form.append('model', BENCH_EDIT_MODEL);
    const t0 = performance.now();
    const res = await fetch(target.imageEditUrl!, { method: 'POST', headers: target.headers, body: form });
    await res.arrayBuffer();
    return { status: res.status, ms: performance.now() - t0 };
  };
  await edit(); // first use: libvips and the route compiled before measuring
  Bun.gc(true);
  await Bun.sleep(500);
  const rssBefore = rssBytes(target.pid);
  const reset = resetPeakRss(target.pid);
  const cpu0 = cpuMicros(target.pid);
  const runs: { status: number; ms: number }[] = [];
  for (let i = 0; i < edits; i++) runs.push(await edit());
  const cpu = cpuMicros(target.pid) - cpu0;
  return {
    generation,
    largestEdit: {
      inputMB: round(upload.length / MB, 1),
      edits,
      statuses: runs.map((r) => r.status),
      p50Ms: round(
        percentile(
          runs.map((r) => r.ms),
          50,
        ),
        1,
      ),
      cpuPerEditMs: round(cpu / edits / 1000, 1),
      peakGrowthMB: reset ? round((peakRssBytes(target.pid) - rssBefore) / MB, 1) : Number.NaN,
    },
  };
}
