import { describe, expect, test } from 'bun:test';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = resolve(import.meta.dir, '../..');
const FOLDERS = ['src', 'plugins', 'providers'];

/** Every .ts file below `dir`, tests excluded. */
function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sources(path));
    else if (name.endsWith('.ts') && !name.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

/**
 * The project files a file imports: static imports and re-exports (type-only ones included: a
 * type cycle is still a cycle) and modules loaded on demand with `import('./x')`.
 */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  const specifiers = [
    ...text.matchAll(/^\s*(?:import|export)\s[^'";]*?from\s+'(\.[^']+)'/gm),
    ...text.matchAll(/\bimport\(\s*'(\.[^']+)'\s*\)/g),
  ];
  for (const m of specifiers) {
    const target = resolve(dirname(file), m[1] as string);
    for (const candidate of [`${target}.ts`, join(target, 'index.ts'), target])
      if (candidate.endsWith('.ts') && statSafe(candidate)) {
        out.push(candidate);
        break;
      }
  }
  return out;
}

const statSafe = (path: string) => {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
};

const files = FOLDERS.flatMap((f) => sources(join(ROOT, f)));
const graph = new Map(files.map((f) => [f, importsOf(f)]));
const rel = (f: string) => relative(ROOT, f);

/** Strongly connected components with more than one file (Tarjan): the import cycles. */
function cycles(): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const found: string[][] = [];
  function visit(v: string) {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        component.push(rel(w));
      } while (w !== v);
      if (component.length > 1) found.push(component);
    }
  }
  for (const f of files) if (!idx.has(f)) visit(f);
  return found;
}

describe('architecture', () => {
  test('the import graph of src, plugins and providers is read (the check below can fail)', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(graph.get(join(ROOT, 'src/app.ts'))?.map(rel)).toContain('src/gates/index.ts');
  });

  test('no import cycles, type-only imports included', () => {
    expect(cycles()).toEqual([]);
  });

  test('nothing in src/pipeline/ or plugins/ imports the whole app (src/deps.ts)', () => {
    const offenders = files
      .filter((f) => rel(f).startsWith('src/pipeline/') || rel(f).startsWith('plugins/'))
      .filter((f) => graph.get(f)?.some((g) => rel(g) === 'src/deps.ts'))
      .map(rel);
    expect(offenders).toEqual([]);
  });

  // The wiring (start-up, the app, its gates and routes, the HTTP layer, the CLI) may import
  // anything; providers, plugins and the domain below them see only what they are handed.
  // The plugin host's entry builds the plugins' services from the app's deps (as the routes
  // do), and its harness starts the app for the plugin test kit: wiring too.
  const WIRING = [
    'src/app.ts',
    'src/boot.ts',
    'src/index.ts',
    'src/deps.ts',
    'src/gates/',
    'src/routes/',
    'src/http/',
    'src/cli/',
    'src/plugin-host/index.ts',
    'src/plugin-host/services.ts',
    'src/plugin-host/harness.ts',
  ];
  const FORBIDDEN = ['src/deps.ts', 'src/app.ts', 'src/boot.ts', 'src/gates/'];

  test('providers, plugins and domain code import neither the app wiring nor a gate', () => {
    const offenders = files
      .filter((f) => !WIRING.some((w) => rel(f).startsWith(w)))
      .flatMap((f) => (graph.get(f) ?? []).filter((g) => FORBIDDEN.some((x) => rel(g).startsWith(x))).map((g) => `${rel(f)} -> ${rel(g)}`));
    expect(offenders).toEqual([]);
  });

  test('the direction check sees an offending import (so it can fail)', () => {
    const search = join(ROOT, 'providers/search/index.ts');
    expect(FORBIDDEN.some((x) => rel(search).startsWith(x))).toBe(false);
    expect(WIRING.some((w) => 'providers/search/index.ts'.startsWith(w))).toBe(false);
    expect(graph.get(join(ROOT, 'src/kv/redis-link.ts'))?.map(rel)).toContain('src/kv/redis-single.ts');
  });

  // The model families: each serves its routes with what the layers below it offer. Providers
  // and the model catalog sit below them, so shared pieces live in src/stream/, src/models/ or
  // src/net/, never in a family.
  const FAMILIES = [
    'src/chat/',
    'src/embeddings/',
    'src/images/',
    'src/audio/',
    'src/jobs/',
    'src/responses/',
    'src/augment/',
    'src/characters/',
  ];
  // The simulator's lazy loaders of sharp and music-metadata, which the families own.
  const PROVIDER_FAMILY_IMPORTS = [
    'providers/simulator/images.ts -> src/images/sharp.ts',
    'providers/simulator/speech.ts -> src/audio/media.ts',
  ];
  const upward = (from: (f: string) => boolean) =>
    files
      .filter((f) => from(rel(f)))
      .flatMap((f) => (graph.get(f) ?? []).filter((g) => FAMILIES.some((x) => rel(g).startsWith(x))).map((g) => `${rel(f)} -> ${rel(g)}`));

  test('providers and the model catalog import no model family (nothing runs up the layers)', () => {
    expect(upward((f) => f.startsWith('providers/')).filter((i) => !PROVIDER_FAMILY_IMPORTS.includes(i))).toEqual([]);
    expect(upward((f) => f.startsWith('src/models/'))).toEqual([]);
  });

  test('the upward-import check sees one (so it can fail)', () => {
    expect(upward((f) => f === 'src/routes/models.ts').length).toBeGreaterThan(0);
    expect(FAMILIES.some((x) => 'src/chat/completions.ts'.startsWith(x))).toBe(true);
  });

  test('providers parse their config sections without src/config.ts, and the plugin contract names its settings', () => {
    expect(graph.get(join(ROOT, 'providers/search/config.ts'))?.map(rel)).not.toContain('src/config.ts');
    expect(graph.get(join(ROOT, 'src/pipeline/plugin.ts'))?.map(rel)).not.toContain('src/config.ts');
  });

  test('src/gates/index.ts lists the stages in pipeline order', () => {
    const text = readFileSync(join(ROOT, 'src/gates/index.ts'), 'utf8');
    const order = ['authGate(', 'abuseGuardGate(', 'routeRateLimitGate(', 'meteredCallGate(', 'balanceHeadersGate('].map((s) =>
      text.indexOf(s),
    );
    expect(order.every((at) => at > 0)).toBe(true);
    expect([...order].sort((x, y) => x - y)).toEqual(order);
  });
});
