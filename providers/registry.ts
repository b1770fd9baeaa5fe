import type { Logger } from '../src/log';
import type { ProviderConfig } from '../src/models/provider-config';
import { anthropic } from './anthropic';
import { gemini } from './gemini';
import { mediaJobsProvider } from './media-jobs';
import { observedCalls, type CallObserver } from './observed-calls';
import { openAICompatible } from './openai-compatible';
import { createRouter, type ModelRouter } from './router';
import { simulator, type SimulatorCatalog } from './simulator';
import type { Provider } from './types';

/** The model providers built from config, and the router over them. */
export interface ProviderRegistry {
  get(id: string): Provider | undefined;
  router: ModelRouter;
}

/** What building providers needs from outside. */
export interface RegistryDeps {
  fetch: typeof fetch;
  log: Logger;
  /** What the simulator needs to know of the catalog. */
  catalog: SimulatorCatalog;
  /** Told of each call of a provider that makes no HTTP call (the simulator); the others are timed by `fetch`. */
  observeCall?: CallObserver;
}

/**
 * Adding a provider kind is one entry here. Kinds that are not model providers (search,
 * scrape) are built by their own modules from the same `providers` list and skipped here.
 */
const BUILDERS: Record<string, (c: ProviderConfig, d: RegistryDeps) => Provider> = {
  'openai-compatible': (c, d) => {
    if (!c.baseURL) throw new Error(`providers: "${c.id}" (openai-compatible) needs a baseURL`);
    return openAICompatible({
      id: c.id,
      baseURL: c.baseURL,
      apiKey: c.apiKey,
      fetch: d.fetch,
      capabilities: c.capabilities,
      maxResponseBytes: c.maxResponseBytes,
      log: d.log,
    });
  },
  anthropic: (c, d) =>
    anthropic({
      id: c.id,
      baseURL: c.baseURL,
      apiKey: c.apiKey,
      version: stringOption(c, 'version'),
      defaultMaxTokens: integerOption(c, 'maxTokens'),
      maxResponseBytes: c.maxResponseBytes?.chat,
      fetch: d.fetch,
    }),
  gemini: (c, d) =>
    gemini({
      id: c.id,
      baseURL: c.baseURL,
      apiKey: c.apiKey,
      defaultMaxTokens: integerOption(c, 'maxTokens'),
      maxResponseBytes: c.maxResponseBytes,
      fetch: d.fetch,
    }),
  'media-jobs': (c, d) => {
    if (!c.baseURL) throw new Error(`providers: "${c.id}" (media-jobs) needs a baseURL`);
    const paths = (c.options.paths ?? {}) as Partial<Record<'video' | 'audio', string>>;
    return mediaJobsProvider({ id: c.id, baseURL: c.baseURL, apiKey: c.apiKey, fetch: d.fetch, log: d.log, paths });
  },
  simulator: (c, d) => simulator({ id: c.id, options: c.options ?? {}, catalog: d.catalog, log: d.log }),
};

/** A provider's string option, or a configuration error naming it. */
function stringOption(c: ProviderConfig, name: string): string | undefined {
  const v = c.options[name];
  if (v === undefined || typeof v === 'string') return v;
  throw new Error(`providers: "${c.id}" (${c.kind}) option "${name}" must be a string`);
}

/** A provider's positive integer option, or a configuration error naming it. */
function integerOption(c: ProviderConfig, name: string): number | undefined {
  const v = c.options[name];
  if (v === undefined || (Number.isInteger(v) && (v as number) > 0)) return v as number | undefined;
  throw new Error(`providers: "${c.id}" (${c.kind}) option "${name}" must be a positive integer`);
}

/** Builds the model providers of `configs` (src/boot.ts `effectiveProviders`) and their router. */
export function createProviderRegistry(configs: ProviderConfig[], deps: RegistryDeps): ProviderRegistry {
  const built = new Map<string, { provider: Provider; timeoutMs: number }>();
  for (const c of configs) {
    const build = BUILDERS[c.kind];
    if (!build) continue;
    const provider = build(c, deps);
    const observed = provider.simulated && deps.observeCall ? observedCalls(provider, deps.observeCall) : provider;
    built.set(c.id, { provider: observed, timeoutMs: c.timeoutMs ?? 120_000 });
  }
  return { get: (id) => built.get(id)?.provider, router: createRouter((id) => built.get(id)) };
}
