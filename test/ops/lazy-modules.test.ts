import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { lazyModule } from '../../src/lifecycle/lazy-module';
import { rejectionOf } from '../helpers/rejection';

const ROOT = join(import.meta.dir, '../..');

/**
 * Packages (or entry points of one) only some requests need: svc loads them on first use,
 * never at start (docs/operations.md "Memory"). @x402/core's `types` and `utils` entries are light and stay.
 */
const LOADED_ON_FIRST_USE = [
  'sharp',
  'linkedom',
  '@mozilla/readability',
  'ethers',
  'siwe',
  'viem',
  '@x402/evm',
  '@x402/svm',
  '@x402/extensions',
  '@x402/core/server',
  '@x402/core/http',
  // Each database's driver, loaded by the backend that opens it (src/db/open.ts): PGlite's
  // JavaScript is RSS a Postgres deployment does not need (src/db/embedded-client.ts).
  'postgres',
  'drizzle-orm/postgres-js',
  '@electric-sql/pglite',
  'drizzle-orm/pglite',
  // Audio: the upload reader and the simulator's MP3 encoder.
  'music-metadata',
  '@breezystack/lamejs',
  // Never loaded: a peer of @elysiajs/openapi for its fromTypes() only; the image removes it (Dockerfile).
  'typescript',
];

const transpiler = new Bun.Transpiler({ loader: 'ts' });
const packageOf = (specifier: string) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

/**
 * The package specifiers reached from `entry` through static imports of svc's own files: what
 * a process started with `bun <entry>` has loaded before its first request. Dynamic `import()`
 * calls past the entry and type-only imports (erased by the transpiler) are not followed.
 */
function packagesLoadedAtStart(entry: string): Map<string, string> {
  const packages = new Map<string, string>(); // specifier -> first file importing it
  const seen = new Set<string>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const { kind, path } of transpiler.scanImports(readFileSync(file, 'utf8'))) {
      // The entry's own `import()`s load at every start too (it reads the config first).
      const atStart = kind === 'import-statement' || kind === 'require-call' || (kind === 'dynamic-import' && file === entry);
      if (!atStart) continue;
      if (path.startsWith('.')) queue.push(Bun.resolveSync(path, dirname(file)));
      else if (!packages.has(path)) packages.set(path, file.slice(ROOT.length + 1));
    }
  }
  return packages;
}

describe('modules loaded on first use', () => {
  test('the start-up import graph of src/index.ts reaches none of them', () => {
    const atStart = packagesLoadedAtStart(join(ROOT, 'src/index.ts'));
    // The walk itself works: the packages every start needs are found.
    expect(atStart.has('elysia')).toBe(true);
    expect(atStart.has('drizzle-orm')).toBe(true);
    const lazy = (specifier: string) => LOADED_ON_FIRST_USE.some((name) => specifier === name || specifier.startsWith(`${name}/`));
    const imported = [...atStart].filter(([specifier]) => lazy(specifier)).map(([specifier, file]) => `${specifier} (from ${file})`);
    expect(imported).toEqual([]);
  });

  test('lazyModule loads once for concurrent first callers, and a failed load is tried again', async () => {
    let loads = 0;
    const load = lazyModule(async () => ({ n: ++loads }));
    const [a, b] = await Promise.all([load(), load()]);
    expect(a).toBe(b);
    expect(loads).toBe(1);

    let attempts = 0;
    const flaky = lazyModule(async () => {
      if (++attempts === 1) throw new Error('native binary missing');
      return 'loaded';
    });
    expect((await rejectionOf(flaky())).message).toContain('native binary missing');
    expect(await flaky()).toBe('loaded');
    expect(attempts).toBe(2);
  });
});
