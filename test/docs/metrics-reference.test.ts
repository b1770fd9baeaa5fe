import { describe, expect, test } from 'bun:test';
import { metricsRegistry } from '../../src/metrics';
import { isPluginOwnMetric } from '../../src/metrics/plugins';
import { metricsReference, METRICS_MARKERS } from '../../src/metrics/reference';
import { startTestApp } from '../helpers/app';
import { pageText } from './markdown';

// docs/operations.md carries the table of every metric /metrics serves, generated from the
// registry: it must be the table the registry gives today, and name what a scrape shows.
describe('the metrics reference', () => {
  const page = pageText('docs/operations.md');
  const block = page.slice(page.indexOf(METRICS_MARKERS[0]), page.indexOf(METRICS_MARKERS[1]) + METRICS_MARKERS[1].length);

  test('is the table the registry generates (run `npm run docs:metrics` after changing a metric)', () => {
    expect(block).toBe(metricsReference());
  });

  test('names every metric family a scrape of a running app serves, with its type', async () => {
    const t = await startTestApp();
    try {
      await t.request('/models');
      const res = await t.app.handle(new Request('http://localhost/metrics'));
      // A plugin's own metrics exist once it used them (other test files may have run first in this process).
      const served = [...(await res.text()).matchAll(/^# TYPE (\S+) (\S+)$/gm)].filter((m) => !isPluginOwnMetric(m[1]!));
      const families = served.map((m) => `| \`${m[1]}\` | ${m[2]} |`);
      const registered = metricsRegistry.getMetricsAsArray().filter((m) => !isPluginOwnMetric(m.name));
      expect(families.length).toBe(registered.length);
      for (const family of families) expect(block).toContain(family);
    } finally {
      await t.close();
    }
  });
});
