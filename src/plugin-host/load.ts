import type { AnyPlugin } from '@svc/plugin-sdk';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { ConfigError } from '../config-fields';
import type { LoadedPackages } from './entries';

/** Whether `value` looks like a plugin: a name and an `isActive` hook. */
function isPlugin(value: unknown): value is AnyPlugin {
  const p = value as AnyPlugin | null;
  return typeof p === 'object' && p !== null && typeof p.name === 'string' && p.name !== '' && typeof p.isActive === 'function';
}

/** A path (`./x`, `../x`, `/x`) rather than a package name. */
const isPath = (spec: string) => spec.startsWith('.') || isAbsolute(spec);

type Exports = string | { [condition: string]: Exports } | undefined;

/** The entry file of an export: the condition svc runs under first (bun, then import, then default). */
function entryOf(e: Exports): string | undefined {
  if (typeof e === 'string' || e === undefined) return e;
  if ('.' in e) return entryOf(e['.']);
  return entryOf(e.bun ?? e.import ?? e.default);
}

/** The module a package folder (given by path) loads: its package.json's export, module or main, else index. */
function folderEntry(folder: string): string {
  const manifest = join(folder, 'package.json');
  if (!existsSync(manifest)) return Bun.resolveSync(join(folder, 'index'), folder);
  const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { exports?: Exports; module?: string; main?: string };
  return resolve(folder, entryOf(pkg.exports) ?? pkg.module ?? pkg.main ?? 'index.js');
}

/** Where `spec` resolves: a path from `dir` (a file or a package's folder), an npm name from `dir`'s node_modules, else from svc's own. */
function resolvePackage(spec: string, dir: string): string {
  if (isPath(spec)) {
    const path = resolve(dir, spec);
    return existsSync(path) && statSync(path).isDirectory() ? folderEntry(path) : Bun.resolveSync(path, dir);
  }
  try {
    return Bun.resolveSync(spec, dir);
  } catch {
    return Bun.resolveSync(spec, process.cwd());
  }
}

/**
 * Imports the packages the config's `plugins:` entries name: paths relative to `dir` (the
 * config file's folder), npm names from its node_modules or svc's. A package must
 * default-export a plugin or a list of them; one that cannot be imported, or exports
 * something else, stops the start with its name and the reason.
 */
export async function importPluginPackages(entries: unknown[] | undefined, dir = process.cwd()): Promise<LoadedPackages> {
  const out = new Map<string, readonly AnyPlugin[]>();
  for (const [i, entry] of (entries ?? []).entries()) {
    const spec = (entry as { package?: unknown } | null)?.package;
    if (typeof spec !== 'string' || out.has(spec)) continue;
    const field = `plugins.${i}.package`;
    let module: { default?: unknown };
    try {
      // A path may be a file or a package's folder (its package.json says what to load).
      module = (await import(resolvePackage(spec, dir))) as { default?: unknown };
    } catch (error) {
      const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
      throw new ConfigError(`config: invalid field "${field}": the plugin package "${spec}" could not be loaded: ${reason}`, field);
    }
    const exported = module.default;
    const list = Array.isArray(exported) ? exported : [exported];
    if (list.length === 0 || !list.every(isPlugin))
      throw new ConfigError(
        `config: invalid field "${field}": the plugin package "${spec}" must default-export a plugin (definePlugin) or a list of them`,
        field,
      );
    out.set(spec, list);
  }
  return out;
}
