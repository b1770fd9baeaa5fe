import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { loadConfig } from '../../src/config';
import { checkConfigSections } from '../../src/config-sections';
import { startTestApp, type TestApp } from '../helpers/app';
import { documentationPages, fencedBlocks, pageText, ROOT } from './markdown';

// Every fenced block tagged `sh example` or `ts example` in the README and docs/ runs against
// a listening svc (the simulator catalog, the bootstrap ADMIN key in $KEY), so a false
// example fails the suite. The examples name http://localhost:8080; the test points them at
// its own server.
const EXAMPLES = documentationPages().flatMap((page) =>
  fencedBlocks(pageText(page))
    .filter((b) => b.info === 'sh example' || b.info === 'ts example')
    .map((b) => ({ name: `${page}:${b.line} (${b.info.split(' ')[0]})`, ...b })),
);

// Every ```yaml block is a piece of svc.config.yaml (other YAML says so: ```yaml characters),
// loaded and checked section by section as a start would.
const CONFIG_SNIPPETS = documentationPages().flatMap((page) =>
  fencedBlocks(pageText(page))
    .filter((b) => b.info === 'yaml')
    .map((b) => ({ name: `${page}:${b.line}`, ...b })),
);

let t: TestApp;
let base = '';
beforeAll(async () => {
  t = await startTestApp();
  t.app.listen({ hostname: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${t.app.server!.port}`;
});
afterAll(async () => {
  if (photos) rmSync(photos, { recursive: true, force: true });
  await t.app.stop(true);
  await t.close();
});

const pointed = (code: string) => code.replaceAll('http://localhost:8080', base);

let photos: string | undefined;
/** A temporary folder with photo.jpg, a.jpg and b.jpg (512 x 512 gradients), made once. */
async function photoFolder(): Promise<string> {
  if (photos) return photos;
  photos = mkdtempSync(join(tmpdir(), 'svc-doc-examples-'));
  const pixels = Buffer.alloc(512 * 512 * 3, 0).map((_, i) => (i * 7) % 256);
  const jpeg = await sharp(pixels, { raw: { width: 512, height: 512, channels: 3 } })
    .jpeg()
    .toBuffer();
  for (const name of ['photo.jpg', 'a.jpg', 'b.jpg']) writeFileSync(join(photos, name), jpeg);
  return photos;
}

/** Runs a command with $KEY set, in `cwd`; returns its exit code and what it printed. */
async function run(cmd: string[], cwd = ROOT) {
  const proc = Bun.spawn(cmd, { cwd, env: { ...process.env, KEY: t.adminKey }, stdout: 'pipe', stderr: 'pipe' });
  const [code, stdout, stderr] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  return { code, stdout, stderr };
}

describe('documentation examples', () => {
  test('the README has runnable examples (curl and the OpenAI SDK)', () => {
    const readme = EXAMPLES.filter((e) => e.name.startsWith('README.md'));
    expect(readme.map((e) => e.info).sort()).toEqual(['sh example', 'ts example']);
  });

  test.each(CONFIG_SNIPPETS)('$name is a valid piece of the config file', ({ code, line }) => {
    const file = join(ROOT, 'test', 'docs', `.example-${line}.yaml`);
    writeFileSync(file, code);
    try {
      loadConfig({ SVC_CONFIG: file, VLLM_API_KEY: 'sk-example', OPENAI_API_KEY: 'sk-example' }, checkConfigSections);
    } finally {
      rmSync(file, { force: true });
    }
  });

  test.each(EXAMPLES)(
    '$name runs and gets no error',
    async (example) => {
      if (example.info === 'sh example') {
        // Shell examples run in a folder of their own holding the photos they name.
        const { code, stdout, stderr } = await run(['bash', '-euo', 'pipefail', '-c', pointed(example.code)], await photoFolder());
        expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
        expect(stdout).not.toContain('"error"');
        expect(stdout.length).toBeGreaterThan(0);
      } else {
        const file = join(ROOT, 'test', 'docs', `.example-${example.line}.ts`);
        writeFileSync(file, pointed(example.code));
        try {
          const { code, stdout, stderr } = await run([process.execPath, file]);
          expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
          expect(stdout.length).toBeGreaterThan(0);
        } finally {
          rmSync(file, { force: true });
        }
      }
    },
    30_000,
  );
});
