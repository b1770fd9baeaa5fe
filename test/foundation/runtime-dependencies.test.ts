import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { Glob } from 'bun';

/**
 * The production install (`npm install --omit=dev`) holds `dependencies` only: every package
 * the running code reaches (src/, providers/, plugins/, tests excluded) must be one of them,
 * or the service fails at run time where a development checkout worked. And the other way:
 * every runtime dependency is reached, or listed below with the reason it is installed
 * anyway, and has its reason in docs/dependencies.md.
 */

const ROOT = join(import.meta.dir, '../..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const RUNTIME = new Set(Object.keys(pkg.dependencies));

/** Runtime dependencies that no import names, and why they are installed. */
const NOT_IMPORTED: Record<string, string> = {
  bun: 'the runtime itself: `npm start` runs its binary (imports of "bun" are its built-in module)',
  '@solana/kit': 'a required peer of @x402/svm (Solana payments), which npm would otherwise pick itself',
};

const BUILTIN = new Set(['bun', ...builtinModules]);
// The loader by extension: as tsx, `<T>(x: T) => ...` in a .ts file is read as an element.
const transpilers = {
  ts: new Bun.Transpiler({ loader: 'ts' }),
  tsx: new Bun.Transpiler({ loader: 'tsx' }),
  js: new Bun.Transpiler({ loader: 'js' }),
};

/** The package a bare import specifier names (`@scope/name` or `name`), or null for relative, builtin and URL imports. */
function packageOf(specifier: string): string | null {
  if (/^(\.|\/|[a-z]+:)/.test(specifier)) return null;
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
  return BUILTIN.has(name) ? null : name;
}

/** Every package the running code imports, with the files that import it. */
function importedPackages(): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const dir of ['src', 'providers', 'plugins'])
    for (const file of new Glob('**/*.{ts,tsx,js,mjs}').scanSync(join(ROOT, dir))) {
      if (/\.test\.[jt]sx?$/.test(file)) continue;
      const code = readFileSync(join(ROOT, dir, file), 'utf8');
      const specifiers = [
        ...transpilers[file.endsWith('.ts') ? 'ts' : file.endsWith('.tsx') ? 'tsx' : 'js'].scanImports(code).map((i) => i.path),
        // require.resolve reaches a package's files without importing it (the /docs UI assets).
        ...[...code.matchAll(/require\.resolve\(\s*['"]([^'"]+)['"]/g)].map((m) => m[1]!),
      ];
      for (const specifier of specifiers) {
        const name = packageOf(specifier);
        if (name) found.set(name, [...(found.get(name) ?? []), `${dir}/${file}`]);
      }
    }
  return found;
}

describe('runtime dependencies', () => {
  const imported = importedPackages();

  test('every package src/, providers/ and plugins/ import is a runtime dependency (not a devDependency)', () => {
    const missing = [...imported].filter(([name]) => !RUNTIME.has(name)).map(([name, files]) => `${name} (${files.join(', ')})`);
    expect(missing).toEqual([]);
  });

  test('every runtime dependency is imported by the running code, or listed with its reason', () => {
    const unused = [...RUNTIME].filter((name) => !imported.has(name) && !NOT_IMPORTED[name]);
    expect(unused).toEqual([]);
  });

  test('no package is both a dependency and a devDependency', () => {
    expect(Object.keys(pkg.devDependencies).filter((name) => RUNTIME.has(name))).toEqual([]);
  });

  test('docs/dependencies.md says why each runtime dependency is there', () => {
    const doc = readFileSync(join(ROOT, 'docs/dependencies.md'), 'utf8');
    expect([...RUNTIME].filter((name) => !doc.includes(`\`${name}\``))).toEqual([]);
  });
});
