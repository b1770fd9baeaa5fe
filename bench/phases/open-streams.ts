import { openFds, rssBytes, settledRss, startChild, withTimeout } from '../lib/proc';
import type { Target, UpstreamControl } from '../lib/targets';

/** What holding N open streams through one proxy looked like. */
export interface OpenStreamsResult {
  requested: number;
  opened: number;
  failed: number;
  openMs: number | null;
  /** Proxy RSS before opening (idle, once settled) and while holding, in MB. */
  idleRssMB: number;
  holdingRssMB: number | null;
  /** holding - idle: what the held streams cost (the RSS target is checked against this). */
  growthMB: number | null;
  /** File descriptors of the proxy while holding (one inbound and one upstream socket per stream). */
  holdingFds: number | null;
  /** Streams the upstream saw open at once: above 256 proves the fetch limit was raised. */
  upstreamPeakOpen: number;
  errors: Record<string, number>;
  note?: string;
}

const MB = 1024 * 1024;

/**
 * Opens `count` streams through `target` against an upstream pacing 20 ms per chunk, holds
 * them while reading RSS, then closes them. Failures (fd limits, timeouts) are counted and
 * reported instead of failing the run.
 */
export async function openStreamsPhase(
  target: Target,
  upstream: UpstreamControl,
  body: string,
  opts: {
    count: number;
    holdMs: number;
    timeoutMs: number;
    /** Runs while the streams are still held, after the readings (a diagnosis tool's own reading). */
    onHolding?: () => Promise<void>;
  },
): Promise<OpenStreamsResult> {
  // Enough chunks that no stream ends before the hold is over.
  const chunks = Math.ceil((opts.timeoutMs + opts.holdMs) / 20) + 10;
  await upstream.shape(chunks, 20);
  const idleRssMB = (await settledRss(target.pid)) / MB;
  await upstream.stats(true);
  const job = {
    mode: 'open',
    count: opts.count,
    batch: 250,
    openTimeoutMs: 15_000,
    url: target.chatUrl,
    headers: { 'content-type': 'application/json', ...target.headers },
    body,
  };
  const client = startChild(`open-streams client ${opts.count}`, [process.execPath, 'bench/load/stream-client.ts', JSON.stringify(job)], {
    BUN_CONFIG_MAX_HTTP_REQUESTS: String(opts.count + 100),
  });
  const result: OpenStreamsResult = {
    requested: opts.count,
    opened: 0,
    failed: 0,
    openMs: null,
    idleRssMB: round1(idleRssMB),
    holdingRssMB: null,
    growthMB: null,
    holdingFds: null,
    upstreamPeakOpen: 0,
    errors: {},
  };
  try {
    const [line] = await withTimeout(
      `opening ${opts.count} streams`,
      opts.timeoutMs,
      client.waitFor(/^\{"event":"holding".*\}$/, opts.timeoutMs),
    );
    const held = JSON.parse(line!) as { opened: number; failed: number; openMs: number; errors: Record<string, number> };
    Object.assign(result, { opened: held.opened, failed: held.failed, openMs: held.openMs, errors: held.errors });
    await Bun.sleep(opts.holdMs);
    result.holdingRssMB = round1(rssBytes(target.pid) / MB);
    result.holdingFds = openFds(target.pid);
    await opts.onHolding?.();
  } catch (error) {
    result.note = String((error as Error).message).split('\n')[0];
    // Not all streams opened in time: report how far the client got.
    const progress = client.last(/^\{"event":"progress"/);
    if (progress) Object.assign(result, pickCounts(JSON.parse(progress) as { opened: number; failed: number }));
    result.holdingRssMB = round1(rssBytes(target.pid) / MB);
  } finally {
    if (result.holdingRssMB !== null) result.growthMB = round1(result.holdingRssMB - result.idleRssMB);
    result.upstreamPeakOpen = (await upstream.stats().catch(() => ({ peakOpen: 0 }))).peakOpen;
    await client.stop();
    await upstream.shape(50, 0);
    // Let the proxy notice the aborts and release the upstream sockets before the next phase.
    await waitUntilDrained(upstream, 10_000);
  }
  return result;
}

async function waitUntilDrained(upstream: UpstreamControl, ms: number) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if ((await upstream.stats()).open === 0) return;
    await Bun.sleep(200);
  }
}

function pickCounts(p: { opened: number; failed: number }) {
  return { opened: p.opened, failed: p.failed };
}

function round1(x: number) {
  return Math.round(x * 10) / 10;
}
