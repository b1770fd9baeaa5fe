import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { configReference, REFERENCE_MARKERS } from '../config-reference';

/** `npm run docs:config`: rewrites the generated table of docs/configuration.md from the schemas. */
const page = join(import.meta.dir, '..', '..', 'docs', 'configuration.md');
const text = readFileSync(page, 'utf8');
const start = text.indexOf(REFERENCE_MARKERS[0]);
const end = text.indexOf(REFERENCE_MARKERS[1]);
if (start < 0 || end < 0) throw new Error(`${page}: the config-reference markers are missing`);
writeFileSync(page, text.slice(0, start) + configReference() + text.slice(end + REFERENCE_MARKERS[1].length));
process.stdout.write(`${page}: configuration reference written\n`);
