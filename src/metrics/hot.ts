import type { Registry } from 'prom-client';

/** One exposition sample, in the shape prom-client's registry renders. */
interface Sample {
  value: number;
  labels: Record<string, string | number>;
  metricName?: string;
}

/** What prom-client's registry asks of a metric: a name, and its samples on scrape (`labelNames` as its own metrics declare them, for the metrics reference). */
interface CollectedMetric {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  aggregator: 'sum';
  labelNames: readonly string[];
  get(): { name: string; help: string; type: 'counter' | 'histogram'; aggregator: 'sum'; values: Sample[] };
}

/**
 * A counter for the per-request path: prom-client validates and hashes the label object on
 * every `inc` (a child from `labels()` too); this one finds its series by a string key the
 * caller already has and does the label work only when scraped. Registered in a prom-client
 * registry, it renders like any other counter.
 */
/** One series of a HotCounter, held by a caller that counts it often (no lookup per update). */
export interface CounterSeries {
  labels: Record<string, string>;
  value: number;
}

/** One series of a HotHistogram, held the same way. */
export interface HistogramSeries {
  labels: Record<string, string>;
  buckets: number[];
  sum: number;
  count: number;
}

export class HotCounter {
  private readonly series = new Map<string, CounterSeries>();

  constructor(registry: Registry, name: string, help: string, labelNames: readonly string[] = []) {
    const series = this.series;
    const metric: CollectedMetric = {
      name,
      help,
      type: 'counter',
      aggregator: 'sum',
      labelNames,
      get: () => ({
        name,
        help,
        type: 'counter',
        aggregator: 'sum',
        values: [...series.values()].map((s) => ({ value: s.value, labels: s.labels })),
      }),
    };
    registry.registerMetric(metric as never);
  }

  /** Adds `by` to the series `key`; `labels` builds its labels the first time only. */
  inc(key: string, labels: () => Record<string, string>, by = 1): void {
    const entry = this.series.get(key);
    if (entry) entry.value += by;
    else this.series.set(key, { labels: labels(), value: by });
  }

  /** The series `key` (created with `labels`, at 0), for a caller that keeps it and adds to its `value`. */
  seriesOf(key: string, labels: Record<string, string>): CounterSeries {
    let entry = this.series.get(key);
    if (!entry) this.series.set(key, (entry = { labels, value: 0 }));
    return entry;
  }
}

/** A histogram for the per-request path, the same way: a string key per series, labels built on first use. */
export class HotHistogram {
  private readonly series = new Map<string, HistogramSeries>();

  constructor(
    registry: Registry,
    name: string,
    help: string,
    private readonly bounds: readonly number[],
    labelNames: readonly string[] = [],
  ) {
    const series = this.series;
    const metric: CollectedMetric = {
      name,
      help,
      type: 'histogram',
      aggregator: 'sum',
      labelNames,
      get() {
        const values: Sample[] = [];
        for (const s of series.values()) {
          // Exposition buckets are cumulative.
          let cumulative = 0;
          bounds.forEach((le, i) => {
            cumulative += s.buckets[i]!;
            values.push({ metricName: `${name}_bucket`, labels: { ...s.labels, le }, value: cumulative });
          });
          values.push({ metricName: `${name}_bucket`, labels: { ...s.labels, le: '+Inf' }, value: s.count });
          values.push({ metricName: `${name}_sum`, labels: s.labels, value: s.sum });
          values.push({ metricName: `${name}_count`, labels: s.labels, value: s.count });
        }
        return { name, help, type: 'histogram', aggregator: 'sum', values };
      },
    };
    registry.registerMetric(metric as never);
  }

  /** Records `value` in the series `key`; `labels` builds its labels the first time only. */
  observe(key: string, labels: () => Record<string, string>, value: number): void {
    let entry = this.series.get(key);
    if (!entry) this.series.set(key, (entry = { labels: labels(), buckets: new Array(this.bounds.length).fill(0), sum: 0, count: 0 }));
    this.record(entry, value);
  }

  /** The series `key` (created with `labels`, empty), for a caller that keeps it and records with `record`. */
  seriesOf(key: string, labels: Record<string, string>): HistogramSeries {
    let entry = this.series.get(key);
    if (!entry) this.series.set(key, (entry = { labels, buckets: new Array(this.bounds.length).fill(0), sum: 0, count: 0 }));
    return entry;
  }

  /** Records `value` in a series of this histogram (from `seriesOf`). */
  record(entry: HistogramSeries, value: number): void {
    entry.sum += value;
    entry.count++;
    const { bounds } = this;
    for (let i = 0; i < bounds.length; i++)
      if (value <= bounds[i]!) {
        entry.buckets[i]!++;
        return;
      }
  }
}
