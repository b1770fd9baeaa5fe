// The plugins' metrics register on import; the reference lists them too.
import { isPluginOwnMetric } from './plugins';
import { metricsRegistry } from '.';

/** The markers around the generated table in docs/operations.md. */
export const METRICS_MARKERS = ['<!-- metrics-reference:start (npm run docs:metrics) -->', '<!-- metrics-reference:end -->'] as const;

/** What the reference reads of a registered metric: prom-client's own and ./hot.ts's carry the same fields. */
interface DescribedMetric {
  name: string;
  help: string;
  type: string;
  labelNames?: readonly string[];
}

// prom-client's process metrics (collectDefaultMetrics) come after svc's own in the table.
const isProcessMetric = (name: string) => /^svc_(process|nodejs)_/.test(name);
const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/**
 * The table of every metric `GET /metrics` serves, generated from the registry the service
 * builds (src/metrics/), so docs/operations.md cannot drift from it: name, type, labels, help.
 * A plugin's own metrics (`svc_plugin_<plugin>_<name>`) are on that plugin's page, not here.
 */
export function metricsReference(): string {
  const metrics = (metricsRegistry.getMetricsAsArray() as unknown as DescribedMetric[])
    .filter((m) => !isPluginOwnMetric(m.name))
    .toSorted((a, b) => Number(isProcessMetric(a.name)) - Number(isProcessMetric(b.name)));
  const rows = metrics.map(
    (m) => `| \`${m.name}\` | ${m.type} | ${(m.labelNames ?? []).map((l) => `\`${l}\``).join(', ')} | ${cell(m.help)} |`,
  );
  return [METRICS_MARKERS[0], '| Metric | Type | Labels | Help |', '|---|---|---|---|', ...rows, METRICS_MARKERS[1]].join('\n');
}
