import { describe, expect, test } from 'bun:test';
import { metricsRegistry } from '../../src/metrics';
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
      const families = [...(await res.text()).matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => `| \`${m[1]}\` | ${m[2]} |`);
      expect(families.length).toBe(metricsRegistry.getMetricsAsArray().length);
      for (const family of families) expect(block).toContain(family);
    } finally {
      await t.close();
    }
  });
});
