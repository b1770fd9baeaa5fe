// The plugin contract is the SDK's (packages/plugin-sdk): the built-in plugins and outside
// packages are typed against the same declarations the pipeline hands them.
export { definePlugin } from '@svc/plugin-sdk';
export type {
  AnyPlugin,
  Plugin,
  PluginAnswer,
  PluginCharge,
  PluginContext,
  PluginModel,
  PluginRequest,
  PluginServices,
  PluginStore,
  SettledOutcome,
} from '@svc/plugin-sdk';
import type { AnyPlugin } from '@svc/plugin-sdk';

/** A plugin as the runner holds it, whatever its parameters (the name svc's code uses). */
export type AnyRequestPlugin = AnyPlugin;

/** A plugin typed by its parameters (the name svc's code and tests use). */
export type RequestPlugin<Params = Record<string, unknown>> = import('@svc/plugin-sdk').Plugin<Params>;
