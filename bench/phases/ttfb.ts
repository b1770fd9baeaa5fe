import { startChild, withTimeout } from '../lib/proc';
import type { Target } from '../lib/targets';

/** Time-to-first-byte percentiles (ms) per target name. */
export type TtfbResult = Record<string, { n: number; p50: number; p90: number; p99: number }>;

/**
 * Low-load TTFB: one stream at a time, round-robin over the targets (direct to the upstream,
 * bare proxy, svc) from a separate client process, so every target sees the same noise.
 */
export async function ttfbPhase(targets: Target[], body: string, rounds: number, timeoutMs: number): Promise<TtfbResult> {
  const job = {
    mode: 'ttfb',
    rounds,
    targets: targets.map((t) => ({ name: t.name, url: t.chatUrl, headers: { 'content-type': 'application/json', ...t.headers }, body })),
  };
  const child = startChild('ttfb client', [process.execPath, 'bench/load/stream-client.ts', JSON.stringify(job)]);
  try {
    const [line] = await withTimeout('ttfb phase', timeoutMs, child.waitFor(/^\{"event":"ttfb".*\}$/, timeoutMs));
    return (JSON.parse(line!) as { summary: TtfbResult }).summary;
  } finally {
    await child.stop();
  }
}
