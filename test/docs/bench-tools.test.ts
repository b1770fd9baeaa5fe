import { describe, expect, test } from 'bun:test';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { markdownTables, pageText, ROOT } from './markdown';
import { checkCommand } from './synopsis';

// bench/ holds the harness and the tools docs/benchmarks.md lists, nothing else: a probe
// written for one investigation is documented there (what it measures, how to run it) or
// deleted. At most 15 tools sit beside the harness; narrower probes live in bench/tools/.
// Each listed command, and each flag its row names, is one the script reads.
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
  test('every script in bench/ and bench/tools/ is a listed tool or a part of the harness; at most 15 tools at the top', () => {
    const listed = TOOLS.map((t) => /bench\/(\S+\.ts)/.exec(t.command)?.[1]);
    const top = readdirSync(join(ROOT, 'bench')).filter((f) => f.endsWith('.ts'));
    const scripts = [...top, ...readdirSync(join(ROOT, 'bench', 'tools')).map((f) => `tools/${f}`)];
    expect(scripts.filter((f) => !HARNESS.includes(f) && !listed.includes(f))).toEqual([]);
    expect(top.filter((f) => !HARNESS.includes(f)).length).toBeLessThanOrEqual(15);
  });

  test.each(TOOLS)('$name runs a script that reads every flag its row names', ({ command, flags }) => {
    expect(checkCommand([command, ...flags].join(' '))).toEqual([]);
  });
});
