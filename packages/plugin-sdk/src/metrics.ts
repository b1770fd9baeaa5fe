/** A counter a plugin registered; labels must come from a small fixed set (never user text). */
export interface PluginCounter {
  inc(labels?: Record<string, string>, by?: number): void;
}

/** A histogram a plugin registered (seconds or bytes). */
export interface PluginHistogram {
  observe(labels: Record<string, string>, value: number): void;
}

/**
 * A plugin's own metrics, exported in /metrics as `svc_plugin_<plugin>_<name>` (registered
 * once per name; a second call returns the same one).
 */
export interface PluginMetrics {
  counter(name: string, help: string, labelNames?: string[]): PluginCounter;
  histogram(name: string, help: string, labelNames?: string[], buckets?: number[]): PluginHistogram;
}
