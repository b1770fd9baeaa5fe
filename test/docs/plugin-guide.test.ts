import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';
import { importPluginPackages } from '../../src/plugin-host';
import { fencedBlocks, pageText, ROOT } from './markdown';
import { runExample, scratchFolder, serve, type Served } from './run-example';

// docs/plugins.md's worked example, done as a reader and an operator do it: its `ts file` and
// `json file` blocks are written as a package in a scratch folder inside the repository (so
// `@svc/plugin-sdk` and svc resolve as they do for an author working beside svc), the
// package's own test runs through the test kit, svc starts with the page's `plugins:` config
// (the package imported as a start would), and the page's `sh example plugin` blocks run.
const PAGE = 'docs/plugins.md';
const blocks = fencedBlocks(pageText(PAGE));
const files = blocks.filter((b) => /^(ts|json) file /.test(b.info));
const examples = blocks.filter((b) => b.info === 'sh example plugin').map((b) => ({ ...b, language: 'sh', name: `${PAGE}:${b.line}` }));
const config = parse(blocks.find((b) => b.info === 'yaml' && b.code.includes('plugins:'))?.code ?? '{}') as {
  plugins?: { package?: string }[];
};
const packageDir = dirname(dirname(files.find((f) => f.info.endsWith('/src/index.ts'))?.info.split(' ')[2] ?? 'x/src/index.ts'));

let scratch = '';
let served: Served | undefined;
beforeAll(async () => {
  scratch = await scratchFolder();
  for (const file of files) {
    const path = join(scratch, file.info.split(' ')[2]!);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, file.code);
  }
});
afterAll(async () => {
  rmSync(scratch, { recursive: true, force: true });
  await served?.stop();
});

describe('the worked plugin example', () => {
  test('the page has the package, its test, a config naming it and examples', () => {
    expect(files.map((f) => f.info.split(' ')[2]).sort()).toEqual(
      ['package.json', 'src/index.ts', 'test/index.test.ts', 'tsconfig.json'].map((f) => `${packageDir}/${f}`),
    );
    expect(config.plugins?.[0]?.package).toBe(`./${packageDir}`);
    expect(examples.length).toBeGreaterThan(0);
  });

  test("the plugin's own test passes through the test kit", async () => {
    const proc = Bun.spawn([process.execPath, 'test', `./${join(scratch.slice(ROOT.length + 1), packageDir)}`], {
      cwd: ROOT,
      stdout: 'pipe',
      stderr: 'pipe',
    });
    const [exit, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
    expect({ exit, failed: /(\d+) fail/.exec(stderr)?.[1] }).toEqual({ exit: 0, failed: '0' });
  }, 180_000);

  test.each(examples)(
    '$name runs against svc started with the page’s config',
    async (example) => {
      if (!served) {
        const packages = await importPluginPackages(config.plugins, scratch);
        served = await serve({ plugins: config.plugins }, { chat: { packages } });
      }
      await runExample(example, served, scratch);
    },
    60_000,
  );
});
