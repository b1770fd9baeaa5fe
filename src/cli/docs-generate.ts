import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { configReference, REFERENCE_MARKERS } from '../config-reference';
import { metricsReference, METRICS_MARKERS } from '../metrics/reference';

/**
 * `npm run docs:generate` (also `docs:config`, `docs:metrics`): rewrites the generated tables
 * of the docs from their sources: the configuration reference from the config schemas, the
 * metrics table from the registry /metrics serves. Tests in test/docs fail while one is stale.
 */
const GENERATED = [
  { page: 'docs/configuration.md', markers: REFERENCE_MARKERS, table: configReference },
  { page: 'docs/operations.md', markers: METRICS_MARKERS, table: metricsReference },
];

for (const { page, markers, table } of GENERATED) {
  const path = join(import.meta.dir, '..', '..', page);
  const text = readFileSync(path, 'utf8');
  const start = text.indexOf(markers[0]);
  const end = text.indexOf(markers[1]);
  if (start < 0 || end < 0) throw new Error(`${page}: the markers ${markers.join(' ... ')} are missing`);
  writeFileSync(path, text.slice(0, start) + table() + text.slice(end + markers[1].length));
  process.stdout.write(`${page}: generated table written\n`);
}
