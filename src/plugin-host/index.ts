import type { AnyPlugin, PluginServices, PluginStore } from '@svc/plugin-sdk';
import type { AppDeps } from '../deps';
import type { LoadedPlugin } from './context';
import { chosenPlugins, type LoadedPackages, type PluginSpec } from './entries';
import { servicesFor, sharedServices, type SharedServices } from './services';
import { createRedisStore } from '../kv/redis';
import { parseRedisConfig } from '../kv/redis-config';
import { LazyRedisKv, pluginStores } from './store';
import { PluginMeters } from '../metrics/plugins';

export type { LoadedPlugin } from './context';
export { importPluginPackages } from './load';
import { importPluginPackages } from './load';
import { ConfigError, type Config } from '../config';
import { dirname } from 'node:path';

/** What the plugins of one app share: their services and their stores (one memory budget per app). */
interface Host {
  shared: SharedServices;
  storeOf(plugin: string): PluginStore;
  base: PluginServices;
  /** The plugins' own Redis (`pluginStoreRedisUrl`), if configured. */
  ownRedis: LazyRedisKv | null;
  /** The plugins that run, as last loaded (chat and /responses load the same list). */
  loaded: readonly LoadedPlugin[];
}

const hosts = new WeakMap<AppDeps, Host>();

/** The plugin host of an app, made once (chat and /responses share its stores). */
function hostOf(deps: AppDeps): Host {
  let host = hosts.get(deps);
  if (!host) {
    const shared = sharedServices(deps);
    const url = deps.config.pluginStoreRedisUrl;
    const ownRedis = url ? new LazyRedisKv(() => createRedisStore(url, { redis: parseRedisConfig(deps.config) })) : null;
    const storeOf = pluginStores(deps.kv, deps.config.pluginStoreMaxBytes, deps.now, ownRedis ?? undefined);
    host = { shared, storeOf, base: servicesFor(shared, 'svc'), ownRedis, loaded: [] };
    hosts.set(deps, host);
  }
  return host;
}

/** Closes what the plugin host opened (the plugins' own Redis). */
export async function closePluginHost(deps: AppDeps): Promise<void> {
  await hosts.get(deps)?.ownRedis?.close();
}

/** The services a request's context starts with, before any plugin's view. */
export const baseServices = (deps: AppDeps): PluginServices => hostOf(deps).base;

/** The plugins that run, made ready: each with its options, store, services and time budget. */
export function loadPlugins(deps: AppDeps, specs: readonly PluginSpec[]): LoadedPlugin[] {
  const host = hostOf(deps);
  return (host.loaded = specs.map(({ plugin, options, timeoutMs }) => ({
    name: plugin.name,
    plugin,
    options,
    store: host.storeOf(plugin.name),
    services: servicesFor(host.shared, plugin.name),
    timeoutMs: timeoutMs ?? deps.config.pluginTimeoutMs,
    meters: new PluginMeters(plugin.name),
  })));
}

/** The hooks svc runs, in pipeline order. */
const HOOKS = ['transformRequest', 'respond', 'transformStream', 'transformResponse', 'onSettled'] as const;

/**
 * The plugins of an app for the console: those that run, in order, with the hooks each
 * defines, then the config's entries turned off (`enabled: false`).
 */
export function pluginList(deps: AppDeps): { name: string; enabled: boolean; hooks: string[] }[] {
  const running = (hosts.get(deps)?.loaded ?? []).map(({ name, plugin }) => ({
    name,
    enabled: true,
    hooks: HOOKS.filter((hook) => typeof plugin[hook] === 'function'),
  }));
  const off = ((deps.config.plugins ?? []) as { name?: string; package?: string; enabled?: boolean }[])
    .filter((e) => e.enabled === false)
    .map((e) => ({ name: e.name ?? e.package ?? '', enabled: false, hooks: [] }));
  return [...running, ...off];
}

/**
 * The plugin list of an app: the config's `plugins:` over the built-ins (with the packages
 * it names, imported before the app is built), or `explicit` (tests) with default options.
 */
export function pluginSpecs(deps: AppDeps, builtIns: readonly AnyPlugin[], packages: LoadedPackages = new Map()): PluginSpec[] {
  return chosenPlugins(builtIns, deps.config.plugins, packages);
}

/**
 * At start, before anything is opened: imports the packages the config names (paths
 * relative to the config file) and checks the whole list (entries, options), so a package
 * that cannot be loaded or a bad option stops the start (ConfigError, exit 2).
 */
export async function preparePlugins(config: Config, builtIns: readonly AnyPlugin[], configPath: string): Promise<LoadedPackages> {
  try {
    const packages = await importPluginPackages(config.plugins, dirname(configPath));
    chosenPlugins(builtIns, config.plugins, packages);
    return packages;
  } catch (error) {
    // Say which file it was, as the other config errors do.
    if (error instanceof ConfigError) throw new ConfigError(error.message.replace(/^config: /, `${configPath}: `), error.field);
    throw error;
  }
}
