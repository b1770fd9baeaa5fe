import { Type as T, type Static } from '@sinclair/typebox';
import type { AnyPlugin } from '@svc/plugin-sdk';
import { ConfigError, didYouMean, validated } from '../config-fields';

/** One entry of the config's `plugins:` list: a built-in by `name`, or a package by `package`. */
export const PluginEntrySchema = T.Object(
  {
    name: T.Optional(
      T.String({ minLength: 1, description: "A built-in plugin's name, or the name of a package's plugin when it exports several" }),
    ),
    package: T.Optional(
      T.String({ minLength: 1, description: 'An npm package name or a path (relative to the working directory) of a plugin package' }),
    ),
    enabled: T.Boolean({ default: true, description: 'false: the plugin does not run (a built-in turned off)' }),
    options: T.Record(T.String(), T.Unknown(), {
      default: {},
      description: "The plugin's operator options, validated against its `options` schema",
    }),
    timeoutMs: T.Optional(T.Integer({ minimum: 1, description: "This plugin's hook time budget (default: `pluginTimeoutMs`)" })),
  },
  { additionalProperties: false },
);

/** A validated `plugins:` entry. */
export type PluginEntry = Static<typeof PluginEntrySchema>;

/** A plugin chosen to run, with its operator options validated and its time budget. */
export interface PluginSpec {
  plugin: AnyPlugin;
  options: Record<string, unknown>;
  timeoutMs?: number;
}

/** A package's plugins by the entry that named it (filled by `importPluginPackages` before the app is built). */
export type LoadedPackages = ReadonlyMap<string, readonly AnyPlugin[]>;

/** The plugin's operator options with defaults applied; a bad one stops the start naming the plugin and the field. */
export function pluginOptions(plugin: AnyPlugin, raw: unknown, at: (string | number)[]): Record<string, unknown> {
  let options: Record<string, unknown>;
  try {
    options = validated(T.Object(plugin.options ?? {}, { additionalProperties: false }), raw, 'config', [...at, 'options']);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new ConfigError(error.message.replace(/^config: /, `config: plugin "${plugin.name}": `), error.field);
  }
  const field = [...at, 'options'].join('.');
  let problem: string | null;
  try {
    problem = plugin.validateOptions?.(options) ?? null;
  } catch (error) {
    problem = error instanceof Error ? error.message : String(error);
  }
  if (problem) throw new ConfigError(`config: plugin "${plugin.name}": invalid field "${field}": ${problem}`, field);
  return options;
}

/**
 * The plugins that run, in order, from the built-ins (in their default order) and the
 * config's `plugins:` list. Built-ins the list does not name run first, in their default
 * order; then the list's entries in its order (a named built-in moves to its place in the
 * list); an entry with `enabled: false` does not run. Without a list: the built-ins.
 */
export function chosenPlugins(builtIns: readonly AnyPlugin[], rawEntries: unknown[] | undefined, packages: LoadedPackages): PluginSpec[] {
  if (!rawEntries) return builtIns.map((plugin) => ({ plugin, options: pluginOptions(plugin, {}, ['plugins', plugin.name]) }));
  const entries = rawEntries.map((raw, i) => validated(PluginEntrySchema, raw, 'config', ['plugins', i]));
  const listed: PluginSpec[] = [];
  const named = new Set<string>();
  entries.forEach((entry, i) => {
    for (const plugin of pluginsOf(entry, i, builtIns, packages)) {
      if (named.has(plugin.name))
        throw new ConfigError(`config: invalid field "plugins.${i}": plugin "${plugin.name}" is listed twice`, `plugins.${i}`);
      named.add(plugin.name);
      if (!entry.enabled) continue;
      listed.push({ plugin, options: pluginOptions(plugin, entry.options, ['plugins', i]), timeoutMs: entry.timeoutMs });
    }
  });
  const unnamed = builtIns
    .filter((p) => !named.has(p.name))
    .map((plugin) => ({ plugin, options: pluginOptions(plugin, {}, ['plugins', plugin.name]) }));
  return [...unnamed, ...listed];
}

/** The plugins an entry names: a built-in, a package's plugins, or the one of them it names. */
function pluginsOf(entry: PluginEntry, i: number, builtIns: readonly AnyPlugin[], packages: LoadedPackages): readonly AnyPlugin[] {
  const at = `plugins.${i}`;
  if (entry.package !== undefined) {
    const all = packages.get(entry.package);
    if (!all)
      throw new ConfigError(`config: invalid field "${at}.package": the package "${entry.package}" was not loaded`, `${at}.package`);
    if (entry.name === undefined) return all;
    const one = all.find((p) => p.name === entry.name);
    if (!one)
      throw new ConfigError(
        `config: invalid field "${at}.name": the package "${entry.package}" has no plugin "${entry.name}"; it has: ${all.map((p) => p.name).join(', ')}`,
        `${at}.name`,
      );
    return [one];
  }
  if (entry.name === undefined)
    throw new ConfigError(`config: invalid field "${at}": an entry needs \`name\` (a built-in) or \`package\``, at);
  const builtIn = builtIns.find((p) => p.name === entry.name);
  if (!builtIn) {
    const names = builtIns.map((p) => p.name);
    throw new ConfigError(
      `config: invalid field "${at}.name": no built-in plugin "${entry.name}"${didYouMean(entry.name, names)}; built-ins: ${names.join(', ')}; a package is named with \`package\``,
      `${at}.name`,
    );
  }
  return [builtIn];
}
