import { describe, expect, test } from 'bun:test';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { markdownTables, pageText, ROOT } from './markdown';
import { checkCommand } from './synopsis';

// bench/ holds the harness and the tools docs/benchmarks.md lists, nothing else: a probe
// written for one investigation is documented there (what it measures, how to run it) or
// deleted. Each listed command, and each flag its row names, is one the script reads.
const HARNESS = ['run.ts', 'metrics.ts', 'report.ts', 'probe.ts'];

const TOOLS = markdownTables(pageText('docs/benchmarks.md'))
  .filter(({ header }) => header[0] === 'Command')
  .flatMap(({ rows }) =>
    rows.map(({ cells, line }) => {
      const command = /^`(npx bun bench\/[^`]+)`$/.exec(cells[0]!)?.[1] ?? cells[0]!;
      const flags = [...(cells[1] ?? '').matchAll(/`(--[a-z0-9-]+)[^`]*`/g)].map((m) => m[1]!);
      return { name: `docs/benchmarks.md:${line} ${command}`, command, flags };
    }),
  );

describe('the bench folder', () => {
  test('every script in bench/ is a listed tool or a part of the harness', () => {
    const listed = TOOLS.map((t) => /bench\/(\S+\.ts)/.exec(t.command)?.[1]);
    const scripts = readdirSync(join(ROOT, 'bench')).filter((f) => f.endsWith('.ts'));
    expect(scripts.filter((f) => !HARNESS.includes(f) && !listed.includes(f))).toEqual([]);
  });

  test.each(TOOLS)('$name runs a script that reads every flag its row names', ({ command, flags }) => {
    expect(checkCommand([command, ...flags].join(' '))).toEqual([]);
  });
});
