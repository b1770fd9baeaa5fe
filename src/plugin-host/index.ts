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
    host = { shared, storeOf, base: servicesFor(shared, 'svc'), ownRedis };
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
  return specs.map(({ plugin, options, timeoutMs }) => ({
    name: plugin.name,
    plugin,
    options,
    store: host.storeOf(plugin.name),
    services: servicesFor(host.shared, plugin.name),
    timeoutMs: timeoutMs ?? deps.config.pluginTimeoutMs,
    meters: new PluginMeters(plugin.name),
  }));
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
