import { expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GUARDRAIL_NAMES } from '../../plugins/guardrails';

// The console offers the guardrails as checkboxes from its own list (the page cannot import
// the server's plugins): it must name the same ones, or an operator could not attach a new one.
test("the console's guardrail checkboxes are the server's guardrail names", () => {
  const source = readFileSync(join(import.meta.dir, '../../console/src/pages/guardrails-cell.tsx'), 'utf8');
  const list = /GUARDRAIL_NAMES = \[([^\]]*)\]/.exec(source)?.[1];
  expect(list).toBeDefined();
  expect(JSON.parse(`[${list!.replaceAll("'", '"')}]`)).toEqual([...GUARDRAIL_NAMES]);
});
