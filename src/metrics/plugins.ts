import type { PluginCounter, PluginHistogram, PluginMetrics } from '@svc/plugin-sdk';
import { Counter, Histogram } from 'prom-client';
import { HotCounter, HotHistogram, type CounterSeries, type HistogramSeries } from './hot';
import { metricsRegistry } from './index';

// A hook's time, from a cheap isActive-style transform (~10 µs) to a slow moderation call.
const HOOK_BUCKETS = [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30];

const calls = new HotCounter(metricsRegistry, 'svc_plugin_calls_total', 'Plugin hook calls, by plugin and hook', ['plugin', 'hook']);
const duration = new HotHistogram(
  metricsRegistry,
  'svc_plugin_duration_seconds',
  'Time spent in a plugin hook (a stream transform: per chunk), by plugin and hook',
  HOOK_BUCKETS,
  ['plugin', 'hook'],
);
const refusals = new HotCounter(metricsRegistry, 'svc_plugin_refusals_total', 'Requests a plugin refused, by plugin', ['plugin']);
const errors = new HotCounter(
  metricsRegistry,
  'svc_plugin_errors_total',
  'Plugin hooks that threw or ran over their time budget, by plugin',
  ['plugin'],
);

const storeEvictions = new HotCounter(
  metricsRegistry,
  'svc_plugin_store_evictions_total',
  "Live entries the embedded plugin store evicted to stay within pluginStoreMaxBytes (a cache's evictions), by plugin",
  ['plugin'],
);

/** Counts a live entry of `plugin` evicted from the embedded store. */
export function pluginStoreEvicted(plugin: string): void {
  storeEvictions.inc(plugin, () => ({ plugin }));
}

/** A hook svc times. */
export type Hook = 'transformRequest' | 'respond' | 'transformStream' | 'transformResponse' | 'onSettled';

/** One hook's series. */
interface HookSeries {
  calls: CounterSeries;
  duration: HistogramSeries;
}

/**
 * One plugin's hook series, each made on the hook's first call (no zero series for hooks a
 * plugin lacks) and kept, so a call counts without a key string or a label object.
 */
export class PluginMeters {
  private readonly series: Partial<Record<Hook, HookSeries>> = {};

  constructor(private readonly plugin: string) {}

  /** Counts a call of `hook` that took `seconds`. */
  timed(hook: Hook, seconds: number): void {
    let s = this.series[hook];
    if (!s) {
      const key = `${this.plugin}\u0000${hook}`;
      const labels = { plugin: this.plugin, hook };
      s = this.series[hook] = { calls: calls.seriesOf(key, labels), duration: duration.seriesOf(key, labels) };
    }
    s.calls.value++;
    duration.record(s.duration, seconds);
  }
}

/** Counts a refusal. */
export function pluginRefused(plugin: string): void {
  refusals.inc(plugin, () => ({ plugin }));
}

/** Counts a hook that threw or timed out. */
export function pluginFailed(plugin: string): void {
  errors.inc(plugin, () => ({ plugin }));
}

/** Metric names a plugin may use: Prometheus' own characters, short. */
const NAME = /^[a-z][a-z0-9_]{0,63}$/;
const registered = new Map<string, PluginCounter | PluginHistogram>();

/** The metric name of a plugin's own metric, or a thrown error naming the bad part. */
function fullName(plugin: string, name: string): string {
  if (!NAME.test(name)) throw new Error(`plugin ${plugin}: metric name "${name}" must match ${NAME}`);
  return `svc_plugin_${plugin.replace(/[^a-zA-Z0-9_]/g, '_')}_${name}`;
}

/**
 * Whether `name` is a plugin's own metric (registered on the plugin's first use of it, so
 * present or not depending on what ran): each plugin's page documents its own.
 */
export function isPluginOwnMetric(name: string): boolean {
  return registered.has(name);
}

/** A plugin's own metrics (`ctx.services.metrics`), exported as `svc_plugin_<plugin>_<name>` (a counter's name ends in `_total`). */
export function pluginMetrics(plugin: string): PluginMetrics {
  return {
    counter(name, help, labelNames = []) {
      // Prometheus counters end in _total.
      const full = fullName(plugin, name.endsWith('_total') ? name : `${name}_total`);
      let metric = registered.get(full) as PluginCounter | undefined;
      if (!metric) {
        const c = new Counter({ name: full, help, labelNames, registers: [metricsRegistry] });
        metric = { inc: (labels = {}, by = 1) => c.inc(labels, by) };
        registered.set(full, metric);
      }
      return metric;
    },
    histogram(name, help, labelNames = [], buckets) {
      const full = fullName(plugin, name);
      let metric = registered.get(full) as PluginHistogram | undefined;
      if (!metric) {
        // prom-client takes `buckets: undefined` as no buckets at all: leave it out for its defaults.
        const h = new Histogram({ name: full, help, labelNames, ...(buckets ? { buckets } : {}), registers: [metricsRegistry] });
        metric = { observe: (labels, value) => h.observe(labels, value) };
        registered.set(full, metric);
      }
      return metric;
    },
  };
}
