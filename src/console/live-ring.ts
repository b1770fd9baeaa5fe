import { metricsRegistry } from '../metrics';
import { LIVE_METRICS, snapshotOf, summarize, type LiveSummary, type Metric, type MetricsSnapshot } from './live';
import type { PluginInfo } from './live-plugins';

/** What a summary is told besides the window: the app's plugins, and which providers are the simulator. */
export interface SummaryContext {
  plugins?: PluginInfo[];
  simulated?: (providerId: string) => boolean;
}

/** Recent snapshots of the live metrics, and the figures over any window they cover. */
export interface LiveRing {
  /** Takes a snapshot and keeps it (the timer calls this). */
  sample(): Promise<void>;
  /**
   * The figures from the newest kept snapshot at least `windowMs` old to a snapshot taken
   * now; while none is that old (the ring started less than a window ago), from the oldest.
   */
  summary(windowMs: number, context?: SummaryContext): Promise<LiveSummary>;
}

/**
 * Keeps snapshots taken by `sample` for `keepMs` (plus the one just older, the base of a
 * full window). The snapshots come from a timer, not from the pages' polls: the first
 * reading a page makes must already have a base ~10 s old. Taken when a page asked, its
 * first reading compared with the app's start, and a burst right after opening the page was
 * averaged over the minutes since.
 */
export function liveRing(read: () => Promise<Metric[]>, now: () => number, keepMs: number): LiveRing {
  const kept: MetricsSnapshot[] = [];
  return {
    async sample() {
      const s = snapshotOf(await read(), now());
      kept.push(s);
      while (kept.length > 2 && s.at - (kept[1] as MetricsSnapshot).at >= keepMs) kept.shift();
    },
    async summary(windowMs, context = {}) {
      const current = snapshotOf(await read(), now());
      let base = kept[0] ?? current;
      for (const s of kept) {
        if (current.at - s.at < windowMs) break;
        base = s;
      }
      const out = summarize(base, current, context.plugins);
      const simulated = context.simulated;
      if (simulated) for (const p of out.providers) p.simulated = simulated(p.id);
      return out;
    },
  };
}

/** How often the process's ring samples: a 10 s reading covers 10 to 12 s. */
export const SAMPLE_MS = 2_000;
/** The longest window read (the replicas' health over the last minute). */
const KEEP_MS = 60_000;

/** Reads only the metrics the live figures use (about 0.1 ms; the whole registry also runs the database-backed gauges). */
async function readLiveMetrics(): Promise<Metric[]> {
  const read = await Promise.all(LIVE_METRICS.map((name) => metricsRegistry.getSingleMetric(name)?.get()));
  return read.filter((m) => m !== undefined) as Metric[];
}

let processRing: LiveRing | null = null;

/**
 * The process's ring over its one metrics registry, started on first use: a snapshot now,
 * then one every SAMPLE_MS on an unref'd timer (it never keeps the process alive).
 */
export function sharedLiveRing(): LiveRing {
  if (processRing) return processRing;
  const ring = liveRing(readLiveMetrics, Date.now, KEEP_MS);
  void ring.sample();
  setInterval(function sampleLiveMetrics() {
    void ring.sample();
  }, SAMPLE_MS).unref();
  processRing = ring;
  return ring;
}
