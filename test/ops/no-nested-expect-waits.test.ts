import { describe, expect, test } from 'bun:test';
import { Glob } from 'bun';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// `expect(promise).resolves` and `.rejects` make bun:test wait for the promise by ticking the
// event loop inside the current setImmediate batch. An immediate queued in the same batch
// waits with it: postgres.js sends a query's second half from one, so a test that waited this
// way on an in-process server's answer hung until the database deadline (the console browser
// test failed in CI so; Bun PR 39103). Tests await the value (or `rejectionOf`) instead.
const ROOT = join(import.meta.dir, '../..');
const NESTED_WAIT = /\)\s*\.(resolves|rejects)\s*\./;
const SELF = 'test/ops/no-nested-expect-waits.test.ts';

describe('tests never wait through expect(...).resolves or .rejects', () => {
  test('no test file uses them', () => {
    const offenders: string[] = [];
    for (const dir of ['test', 'plugins', 'providers', 'contract', 'packages']) {
      for (const file of new Glob(`${dir}/**/*.test.ts`).scanSync({ cwd: ROOT })) {
        if (file.includes('node_modules') || file === SELF) continue;
        const text = readFileSync(join(ROOT, file), 'utf8');
        for (const m of text.matchAll(new RegExp(NESTED_WAIT, 'g'))) offenders.push(`${file}:${text.slice(0, m.index).split('\n').length}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  test('the check finds the pattern it is for', () => {
    expect(NESTED_WAIT.test('await expect(p).rejects.toThrow();')).toBe(true);
    expect(NESTED_WAIT.test('await expect(\n  call(),\n)\n  .rejects.toThrow();')).toBe(true);
    expect(NESTED_WAIT.test('await expect(row.textContent()).resolves.toContain("x");')).toBe(true);
    expect(NESTED_WAIT.test('expect(await rejectionOf(p)).toMatchObject({ status: 402 });')).toBe(false);
  });
});
