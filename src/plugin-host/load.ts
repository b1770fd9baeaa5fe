import type { AnyPlugin } from '@svc/plugin-sdk';
import { isAbsolute, resolve } from 'node:path';
import { ConfigError } from '../config-fields';
import type { LoadedPackages } from './entries';

/** Whether `value` looks like a plugin: a name and an `isActive` hook. */
function isPlugin(value: unknown): value is AnyPlugin {
  const p = value as AnyPlugin | null;
  return typeof p === 'object' && p !== null && typeof p.name === 'string' && p.name !== '' && typeof p.isActive === 'function';
}

/** A path (`./x`, `../x`, `/x`) rather than a package name. */
const isPath = (spec: string) => spec.startsWith('.') || isAbsolute(spec);

/**
 * Imports the packages the config's `plugins:` entries name (npm names resolved from the
 * working directory, paths relative to it). A package must default-export a plugin or a
 * list of them; one that cannot be imported, or exports something else, stops the start
 * with its name and the reason.
 */
export async function importPluginPackages(entries: unknown[] | undefined, cwd = process.cwd()): Promise<LoadedPackages> {
  const out = new Map<string, readonly AnyPlugin[]>();
  for (const [i, entry] of (entries ?? []).entries()) {
    const spec = (entry as { package?: unknown } | null)?.package;
    if (typeof spec !== 'string' || out.has(spec)) continue;
    const field = `plugins.${i}.package`;
    let module: { default?: unknown };
    try {
      // A path may be a file or a package's folder (its package.json says what to load).
      module = (await import(Bun.resolveSync(isPath(spec) ? resolve(cwd, spec) : spec, cwd))) as { default?: unknown };
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
