import { addBucket, quantileMs, type Metric } from './quantile';

/** One plugin's cumulative counts read from the metrics registry. */
export interface PluginCounts {
  callsByHook: Map<string, number>;
  refusals: number;
  errors: number;
  /** Hook time: total seconds, and the cumulative histogram over every hook. */
  seconds: number;
  latency: Map<number, number>;
}

/** A plugin as the app runs it (or lists it turned off): the console's row heading. */
export interface PluginInfo {
  name: string;
  enabled: boolean;
  /** The hooks it defines, in pipeline order. */
  hooks: string[];
}

/** One plugin's row on the live page: what it is, and its hook calls and time over the window. */
export interface LivePlugin extends PluginInfo {
  calls: number;
  callsByHook: Record<string, number>;
  refusals: number;
  errors: number;
  /** Mean and p95 time of one hook call (a stream transform: one chunk), null without calls. */
  meanMs: number | null;
  p95Ms: number | null;
}

const empty = (): PluginCounts => ({ callsByHook: new Map(), refusals: 0, errors: 0, seconds: 0, latency: new Map() });

/** Every metered plugin's counts, from the registry's metrics by name. */
export function pluginCountsOf(byName: Map<string, Metric>): Map<string, PluginCounts> {
  const out = new Map<string, PluginCounts>();
  const of = (plugin: unknown) => {
    const name = String(plugin);
    let p = out.get(name);
    if (!p) out.set(name, (p = empty()));
    return p;
  };
  for (const v of byName.get('svc_plugin_calls_total')?.values ?? []) of(v.labels.plugin).callsByHook.set(String(v.labels.hook), v.value);
  for (const v of byName.get('svc_plugin_duration_seconds')?.values ?? []) {
    const p = of(v.labels.plugin);
    if (v.metricName?.endsWith('_sum')) p.seconds += v.value;
    if (v.metricName?.endsWith('_bucket')) addBucket(p.latency, v.labels.le, v.value);
  }
  for (const v of byName.get('svc_plugin_refusals_total')?.values ?? []) of(v.labels.plugin).refusals += v.value;
  for (const v of byName.get('svc_plugin_errors_total')?.values ?? []) of(v.labels.plugin).errors += v.value;
  return out;
}

/**
 * The rows of the live page between the counts `a` and the later `b`: one per plugin of
 * `list` (a plugin without calls in the window shows zeros), or, without a list, one per
 * metered plugin with the hooks it was called on.
 */
export function pluginRows(a: Map<string, PluginCounts>, b: Map<string, PluginCounts>, list?: PluginInfo[]): LivePlugin[] {
  const infos = list ?? [...b].map(([name, p]) => ({ name, enabled: true, hooks: [...p.callsByHook.keys()] }));
  return infos.map((info) => {
    const before = a.get(info.name) ?? empty();
    const after = b.get(info.name) ?? empty();
    const callsByHook: Record<string, number> = {};
    for (const [hook, n] of after.callsByHook) {
      const d = n - (before.callsByHook.get(hook) ?? 0);
      if (d > 0) callsByHook[hook] = d;
    }
    const calls = Object.values(callsByHook).reduce((n, v) => n + v, 0);
    const seconds = after.seconds - before.seconds;
    return {
      ...info,
      calls,
      callsByHook,
      refusals: after.refusals - before.refusals,
      errors: after.errors - before.errors,
      // Two decimals: a cheap transform takes a few µs.
      meanMs: calls > 0 ? Math.round((seconds / calls) * 1000 * 100) / 100 : null,
      p95Ms: quantileMs(before.latency, after.latency, 0.95),
    };
  });
}
