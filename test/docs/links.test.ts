import { describe, expect, test } from 'bun:test';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { anchorsOf, documentationPages, fencedBlocks, pageText, relativeLinks, ROOT } from './markdown';

// Every relative link in the README and docs/ resolves: the file exists and, for a Markdown
// target, so does the heading its anchor names.
describe('documentation links', () => {
  test.each(documentationPages())('%s: every relative link resolves', (page) => {
    const broken: string[] = [];
    for (const { target, line } of relativeLinks(pageText(page))) {
      const [path, anchor] = target.split('#') as [string, string | undefined];
      const file = path === '' ? join(ROOT, page) : join(ROOT, dirname(page), path);
      if (!existsSync(file)) {
        broken.push(`${page}:${line} ${target} (no such file)`);
        continue;
      }
      if (anchor && file.endsWith('.md') && statSync(file).isFile() && !anchorsOf(pageText(file.slice(ROOT.length + 1))).has(anchor))
        broken.push(`${page}:${line} ${target} (no such heading)`);
    }
    expect(broken).toEqual([]);
  });

  // Repository paths quoted in the text (`src/...`, `test/...`, ...) exist, except the files a
  // guide has the reader create (its `ts file <path>` blocks) and the removed probes the
  // benchmarks page names as removed, and the folders tests write into (git-ignored, so absent
  // from a fresh clone until those tests run). The dated notes in docs/perf-notes/ are history.
  const REMOVED = ['bench/fetch-cost.ts', 'bench/pglite-buffers.ts', 'test/artifacts/'];
  test.each(documentationPages().filter((p) => !p.startsWith('docs/perf-notes/')))('%s: every quoted repository path exists', (page) => {
    const text = pageText(page);
    const created = fencedBlocks(text).flatMap((b) => (b.info.startsWith('ts file ') ? [b.info.split(' ')[2]!] : []));
    const missing: string[] = [];
    let fenced = false;
    for (const line of text.split('\n')) {
      if (line.startsWith('```')) fenced = !fenced;
      if (fenced) continue;
      for (const m of line.matchAll(/`((?:src|test|bench|providers|plugins|contract|deploy|docs|seed|\.ci)\/[^`\s]*)`/g)) {
        const path = m[1]!.replace(/[:#].*$/, '');
        if (/[<>*{}]/.test(path) || created.includes(path) || REMOVED.includes(path)) continue;
        if (!existsSync(join(ROOT, path))) missing.push(path);
      }
    }
    expect(missing).toEqual([]);
  });

  test('the README stays a front door (at most 300 lines)', () => {
    expect(pageText('README.md').split('\n').length).toBeLessThanOrEqual(300);
  });
});
