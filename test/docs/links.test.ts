import { describe, expect, test } from 'bun:test';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { anchorsOf, documentationPages, pageText, relativeLinks, ROOT } from './markdown';

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

  test('the README stays a front door (at most 300 lines)', () => {
    expect(pageText('README.md').split('\n').length).toBeLessThanOrEqual(300);
  });
});
