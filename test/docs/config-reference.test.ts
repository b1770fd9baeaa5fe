import { describe, expect, test } from 'bun:test';
import { ConfigSchema } from '../../src/config';
import { configReference, REFERENCE_MARKERS } from '../../src/config-reference';
import { CONFIG_SECTION_SCHEMAS } from '../../src/config-sections';
import { pageText } from './markdown';

// docs/configuration.md carries a table generated from the config schemas: it must be the
// table the schemas give today, and name every field of every section.
describe('the configuration reference', () => {
  const page = pageText('docs/configuration.md');
  const block = page.slice(page.indexOf(REFERENCE_MARKERS[0]), page.indexOf(REFERENCE_MARKERS[1]) + REFERENCE_MARKERS[1].length);

  test('is the table the schemas generate (run `npm run docs:config` after changing one)', () => {
    expect(block).toBe(configReference());
  });

  test('names every top-level field and every field of every section', () => {
    for (const key of Object.keys(ConfigSchema.properties)) expect(block).toContain(`| \`${key}\` |`);
    for (const [section, schema] of Object.entries(CONFIG_SECTION_SCHEMAS))
      for (const key of Object.keys((schema as unknown as { properties: object }).properties))
        expect(block).toContain(`| \`${section}.${key}\` |`);
  });
});
