import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startTestApp, type TestApp } from '../helpers/app';

// The provider package as a user installs it, under Node: packed (which builds dist/ by its
// `prepare` script) or installed from its folder (which runs `prepare` too), into a scratch
// project outside the repository, then imported by Node and used against a listening svc.
const PACKAGE = resolve(import.meta.dir, '../../packages/ai-sdk-provider');
const MODULES = resolve(import.meta.dir, '../../node_modules');
const node = Bun.which('node');
// The peers (and the one dependency) come from this repository's own install, linked, so the test runs offline.
const LINKED = ['ai', '@ai-sdk/openai-compatible', '@ai-sdk/provider-utils', 'zod'].map((name) => join(MODULES, name));

const SCRIPT = `
import { createSvc, svcOptions } from '@svc/ai-sdk-provider';
import { generateText } from 'ai';
const svc = createSvc();
const { text, usage } = await generateText({ model: svc('default'), prompt: 'Hello', providerOptions: svcOptions({ include_svc_system_prompt: false }) });
console.log(JSON.stringify({ text, usage }));
`;

/** Runs a command to its end; its exit code and output. */
async function run(cmd: string[], cwd: string, env: Record<string, string> = {}) {
  const proc = Bun.spawn(cmd, { cwd, env: { ...process.env, ...env }, stdout: 'pipe', stderr: 'pipe' });
  const [exit, stdout, stderr] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  return { exit, stdout, stderr };
}

/**
 * A scratch npm project outside the repository with `spec` installed, offline (`cache`:
 * from npm's cache first, the registry for what it lacks: a git dependency's `prepare` runs
 * in a clone of its own, whose dev dependencies npm installs there, not from links).
 */
async function scratchWith(spec: string, mode: '--offline' | '--prefer-offline' = '--offline'): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-provider-'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'scratch', private: true, type: 'module' }));
  const installed = await run(['npm', 'install', mode, '--no-audit', '--no-fund', spec, ...LINKED], dir);
  expect(installed.stderr).not.toContain('npm error');
  expect(installed.exit).toBe(0);
  writeFileSync(join(dir, 'use.mjs'), SCRIPT);
  return dir;
}

describe.skipIf(!node)('the AI SDK provider package installed under Node', () => {
  let t: TestApp;
  let baseURL: string;
  const scratch: string[] = [];
  beforeAll(async () => {
    t = await startTestApp();
    t.app.listen({ port: 0, hostname: '127.0.0.1' });
    baseURL = `http://127.0.0.1:${t.app.server?.port}/api/v1`;
  });
  afterAll(async () => {
    await t.app.stop(true);
    await t.close();
    for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
  });

  async function expectWorks(dir: string) {
    const used = await run([node!, 'use.mjs'], dir, { SVC_BASE_URL: baseURL, SVC_API_KEY: t.adminKey });
    expect(used.stderr).toBe('');
    expect(used.exit).toBe(0);
    const { text, usage } = JSON.parse(used.stdout);
    expect(text.length).toBeGreaterThan(0);
    expect(usage.outputTokens).toBeGreaterThan(0);
  }

  test('from a packed tarball: dist/ is in it, and Node imports it and calls svc', async () => {
    const out = mkdtempSync(join(tmpdir(), 'svc-pack-'));
    scratch.push(out);
    const packed = await run(['npm', 'pack', '--pack-destination', out], PACKAGE);
    expect(packed.exit).toBe(0);
    const tarball = readdirSync(out).find((f) => f.endsWith('.tgz'))!;
    const listing = await run(['tar', 'tzf', join(out, tarball)], out);
    expect(listing.stdout).toContain('package/dist/index.js');
    const dir = await scratchWith(join(out, tarball));
    scratch.push(dir);
    await expectWorks(dir);
  }, 240_000);

  test('from its folder, as the README shows (prepare builds dist/)', async () => {
    rmSync(join(PACKAGE, 'dist'), { recursive: true, force: true });
    const dir = await scratchWith(PACKAGE);
    scratch.push(dir);
    await expectWorks(dir);
  }, 240_000);

  test("from a git URL: a repository whose root is the package (as `git subtree split` makes it), prepare builds dist/ in npm's clone", async () => {
    // npm installs a git repository's root only: the package's own files (no dist/, as git keeps
    // it) committed at the root of a bare repository, then installed by its git+file URL.
    const work = mkdtempSync(join(tmpdir(), 'svc-provider-git-'));
    scratch.push(work);
    const tree = join(work, 'tree');
    cpSync(PACKAGE, tree, { recursive: true, filter: (src) => !/[\\/](dist|node_modules)$/.test(src) });
    const git = (args: string[], cwd: string) => run(['git', '-c', 'user.name=svc', '-c', 'user.email=svc@localhost', ...args], cwd);
    for (const args of [
      ['init', '-q', '-b', 'main'],
      ['add', '-A'],
      ['commit', '-q', '-m', 'ai-sdk-provider'],
    ])
      expect((await git(args, tree)).exit).toBe(0);
    expect((await git(['clone', '-q', '--bare', tree, join(work, 'provider.git')], work)).exit).toBe(0);
    const dir = await scratchWith(`git+file://${join(work, 'provider.git')}#main`, '--prefer-offline');
    scratch.push(dir);
    await expectWorks(dir);
  }, 240_000);
});
