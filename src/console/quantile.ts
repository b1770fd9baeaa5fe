/** A metric sample's labels. */
export type Labels = Record<string, string | number | undefined>;
/** One metric as prom-client's getMetricsAsJSON gives it (histogram samples name their series). */
export interface Metric {
  name: string;
  values: { value: number; labels: Labels; metricName?: string }[];
}

/** Adds a cumulative bucket count (`le` as the registry gives it) to a histogram by upper bound. */
export function addBucket(into: Map<number, number>, le: string | number | undefined, value: number) {
  const bound = le === '+Inf' ? Infinity : Number(le);
  into.set(bound, (into.get(bound) ?? 0) + value);
}

/**
 * The quantile `q` of the observations between two cumulative histograms, in ms, by linear
 * interpolation inside the bucket (as Prometheus' histogram_quantile); null with none.
 */
export function quantileMs(before: Map<number, number>, after: Map<number, number>, q: number): number | null {
  const bounds = [...after.keys()].sort((a, b) => a - b);
  const counts = bounds.map((b) => (after.get(b) ?? 0) - (before.get(b) ?? 0));
  const total = counts.at(-1) ?? 0;
  if (total <= 0) return null;
  const rank = q * total;
  for (let i = 0; i < bounds.length; i++) {
    if ((counts[i] ?? 0) < rank) continue;
    const upper = bounds[i] as number;
    const lower = i === 0 ? 0 : (bounds[i - 1] as number);
    // Past the last finite bound the best answer is that bound.
    if (upper === Infinity) return lower * 1000;
    const below = i === 0 ? 0 : (counts[i - 1] ?? 0);
    const inBucket = (counts[i] ?? 0) - below;
    const fraction = inBucket > 0 ? (rank - below) / inBucket : 1;
    return Math.round((lower + (upper - lower) * fraction) * 1000 * 10) / 10;
  }
  return null;
}
