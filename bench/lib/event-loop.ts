/**
 * Reads a proxy's `*_event_loop_delay_seconds` histogram (svc's /metrics, the bare proxy's
 * copy of the same sampler) and turns the difference of two scrapes into the delay over the
 * phase between them.
 */

/** One scrape: cumulative count per bucket bound (seconds; Infinity for +Inf), sum and count. */
export interface DelayScrape {
  bounds: number[];
  cumulative: number[];
  sum: number;
  count: number;
}

/** Event-loop delay over one phase, in ms. */
export interface EventLoopWindow {
  samples: number;
  meanMs: number;
  /** Interpolated inside its bucket, as Prometheus's histogram_quantile does. */
  p99Ms: number;
  /** The upper bound of the highest bucket that got a sample (the last finite bound when it is +Inf). */
  maxMs: number;
}

/** Scrapes `url`; null when it does not answer or has no event-loop histogram. */
export async function scrapeDelay(url: string | undefined): Promise<DelayScrape | null> {
  if (!url) return null;
  const text = await fetch(url, { signal: AbortSignal.timeout(5000) })
    .then((r) => r.text())
    .catch(() => '');
  const bounds: number[] = [];
  const cumulative: number[] = [];
  let sum = Number.NaN;
  let count = Number.NaN;
  for (const line of text.split('\n')) {
    const b = /^\w*event_loop_delay_seconds_bucket\{le="([^"]+)"\} (\S+)$/.exec(line);
    if (b) {
      bounds.push(b[1] === '+Inf' ? Infinity : Number(b[1]));
      cumulative.push(Number(b[2]));
    } else if (/^\w*event_loop_delay_seconds_sum /.test(line)) sum = Number(line.split(' ')[1]);
    else if (/^\w*event_loop_delay_seconds_count /.test(line)) count = Number(line.split(' ')[1]);
  }
  return bounds.length > 0 && Number.isFinite(count) ? { bounds, cumulative, sum, count } : null;
}

/** The delay between two scrapes of the same process; null when either is missing or nothing was sampled. */
export function delayBetween(before: DelayScrape | null, after: DelayScrape | null): EventLoopWindow | null {
  if (!before || !after || after.count <= before.count) return null;
  const n = after.count - before.count;
  const counts = after.cumulative.map((c, i) => c - (before.cumulative[i] ?? 0));
  const finite = after.bounds.filter(Number.isFinite);
  const top = (i: number) => (Number.isFinite(after.bounds[i]!) ? after.bounds[i]! : finite[finite.length - 1]!);
  const rank = 0.99 * n;
  let p99 = top(counts.length - 1);
  for (let i = 0; i < counts.length; i++)
    if (counts[i]! >= rank) {
      const lo = i === 0 ? 0 : after.bounds[i - 1]!;
      const below = i === 0 ? 0 : counts[i - 1]!;
      const inBucket = counts[i]! - below;
      p99 = Number.isFinite(after.bounds[i]!) && inBucket > 0 ? lo + ((top(i) - lo) * (rank - below)) / inBucket : top(i);
      break;
    }
  let maxI = 0;
  for (let i = 0; i < counts.length; i++) if (counts[i]! > (i === 0 ? 0 : counts[i - 1]!)) maxI = i;
  const ms = (s: number) => Math.round(s * 1e5) / 100;
  return { samples: n, meanMs: ms((after.sum - before.sum) / n), p99Ms: ms(p99), maxMs: ms(top(maxI)) };
}
