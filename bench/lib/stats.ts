/** Percentile (nearest-rank) of a sample; NaN for an empty one. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))] as number;
}

/** p50/p90/p99 and count of a sample, rounded for printing. */
export function summary(values: number[]) {
  return { n: values.length, p50: round(percentile(values, 50)), p90: round(percentile(values, 90)), p99: round(percentile(values, 99)) };
}

/** Rounds to 3 significant decimals (µs resolution for ms values). */
export function round(x: number, digits = 3): number {
  if (!Number.isFinite(x)) return x;
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** a / b rounded, or null when either side is missing. */
export function ratio(a: number | null | undefined, b: number | null | undefined): number | null {
  if (a == null || b == null || !Number.isFinite(a) || !Number.isFinite(b) || b === 0) return null;
  return round(a / b, 2);
}
