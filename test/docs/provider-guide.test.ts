import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { loadConfig, PROVIDER_KINDS } from '../../src/config';
import { checkConfigSections } from '../../src/config-sections';
import { fencedBlocks, pageText, ROOT } from './markdown';

// docs/providers.md's worked adapter, done with the page's code: its `ts file providers/cohere/...`
// blocks are written to a scratch folder beside the real adapters (so their relative imports
// are the page's), its test file to a scratch folder beside test/'s folders with the import of
// the adapter pointed there, and the test runs; the page's config loads once the kind is
// known, as its step 4 makes it. Registering the kind in providers/registry.ts and
// src/config.ts is not done here (it would change the app every other test runs).
const PAGE = 'docs/providers.md';
const blocks = fencedBlocks(pageText(PAGE));
const files = blocks.filter((b) => b.info.startsWith('ts file '));
const config = blocks.find((b) => b.info === 'yaml cohere');
const adapterFiles = files.filter((f) => f.info.split(' ')[2]!.startsWith('providers/cohere/'));
const testFile = files.find((f) => f.info.split(' ')[2]!.startsWith('test/'));

let adapter = '';
let tests = '';
beforeAll(() => {
  adapter = mkdtempSync(join(ROOT, 'providers', '.docs-example-'));
  tests = mkdtempSync(join(ROOT, 'test', '.docs-example-'));
  for (const file of adapterFiles) writeFileSync(join(adapter, basename(file.info.split(' ')[2]!)), file.code);
  writeFileSync(
    join(tests, 'cohere.test.ts'),
    testFile!.code.replaceAll("'../../providers/cohere'", `'../../providers/${basename(adapter)}'`),
  );
});
afterAll(() => {
  rmSync(adapter, { recursive: true, force: true });
  rmSync(tests, { recursive: true, force: true });
});

describe('the worked provider adapter', () => {
  test('the page has the adapter, its test and its config', () => {
    expect(adapterFiles.map((f) => basename(f.info.split(' ')[2]!)).sort()).toEqual(['answer.ts', 'index.ts', 'stream.ts']);
    expect(testFile?.code).toContain("from '../../providers/cohere'");
    expect(config).toBeDefined();
  });

  test("the adapter's test passes against its fixture upstream", async () => {
    const proc = Bun.spawn([process.execPath, 'test', `./${join('test', basename(tests))}`], { cwd: ROOT, stdout: 'pipe', stderr: 'pipe' });
    const [exit, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
    expect({ exit, passed: /(\d+) pass/.exec(stderr)?.[1], failed: /(\d+) fail/.exec(stderr)?.[1] }).toEqual({
      exit: 0,
      passed: '4',
      failed: '0',
    });
  }, 60_000);

  test('the config loads once the kind is known (step 4)', () => {
    const kinds = PROVIDER_KINDS as unknown as string[];
    const file = join(tests, 'svc.config.yaml');
    writeFileSync(file, config!.code);
    expect(() => loadConfig({ SVC_CONFIG: file, COHERE_API_KEY: 'example' }, checkConfigSections)).toThrow(
      /unknown provider kind "cohere"/,
    );
    kinds.push('cohere');
    try {
      const loaded = loadConfig({ SVC_CONFIG: file, COHERE_API_KEY: 'example' }, checkConfigSections);
      expect(loaded.providers[0]).toMatchObject({ id: 'cohere', kind: 'cohere', apiKey: 'example' });
    } finally {
      kinds.pop();
    }
  });
});
