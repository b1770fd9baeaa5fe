import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { PLUGINS } from '../../plugins';
import type { AnyRequestPlugin } from '../../src/pipeline/plugin';
import { fencedBlocks, pageText, ROOT } from './markdown';
import { runExample, scratchFolder, serve, type Served } from './run-example';

// docs/plugins.md's worked example, done as a reader does it: its `ts file` blocks are written
// as a plugin folder beside the real ones (under a scratch name, so the relative imports are
// the page's), the plugin's own test runs, the plugin joins the list where the page's diff puts
// it, and the page's `sh example plugin` blocks run against a svc serving that list.
const PAGE = 'docs/plugins.md';
const blocks = fencedBlocks(pageText(PAGE));
const files = blocks.filter((b) => b.info.startsWith('ts file plugins/'));
const examples = blocks.filter((b) => b.info === 'sh example plugin').map((b) => ({ ...b, language: 'sh', name: `${PAGE}:${b.line}` }));
// The page's one entry in plugins/index.ts: `+import { name } from './folder'` and `+  name,` as the list's first entry.
const diff = blocks.find((b) => b.info === 'diff')?.code ?? '';
const exported = /^\+import \{ (\w+) \} from '\.\/(\w+)';$/m.exec(diff);

let folder = '';
let scratch = '';
let served: Served | undefined;
beforeAll(async () => {
  folder = mkdtempSync(join(ROOT, 'plugins', '.docs-example-'));
  for (const file of files) {
    const path = join(folder, file.info.split(' ')[2]!.split('/').slice(2).join('/'));
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, file.code);
  }
  scratch = await scratchFolder();
});
afterAll(async () => {
  rmSync(folder, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
  await served?.stop();
});

describe('the worked plugin example', () => {
  test('the page has its files, the list entry and examples', () => {
    expect(files.map((f) => basename(f.info.split(' ')[2]!)).sort()).toEqual(['index.test.ts', 'index.ts']);
    expect(exported).not.toBeNull();
    expect(diff).toMatch(new RegExp(`^\\+  ${exported![1]},$`, 'm'));
    expect(examples.length).toBeGreaterThan(0);
  });

  test("the plugin's own test passes", async () => {
    const proc = Bun.spawn([process.execPath, 'test', `./${join('plugins', basename(folder))}`], {
      cwd: ROOT,
      stdout: 'pipe',
      stderr: 'pipe',
    });
    const [exit, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
    expect({ exit, failed: /(\d+) fail/.exec(stderr)?.[1] }).toEqual({ exit: 0, failed: '0' });
  }, 60_000);

  test.each(examples)(
    '$name runs against svc with the plugin in the list',
    async (example) => {
      if (!served) {
        const plugin = (await import(join(folder, 'index.ts')))[exported![1]!] as AnyRequestPlugin;
        served = await serve({}, { chat: { plugins: [plugin, ...PLUGINS] } });
      }
      await runExample(example, served, scratch);
    },
    30_000,
  );
});
