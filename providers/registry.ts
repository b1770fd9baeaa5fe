import type { Logger } from '../src/log';
import type { ProviderConfig } from '../src/models/provider-config';
import type { Capabilities } from '../src/models/schema';
import type { ChatProvider } from '../src/pipeline/types';
import { openAICompatible } from './openai-compatible';
import { createRouter, type ChatRouter } from './router';
import { simulator } from './simulator';

/** The chat providers built from config, and the router over them. */
export interface ProviderRegistry {
  get(id: string): ChatProvider | undefined;
  router: ChatRouter;
}

/** What building providers needs from outside. */
export interface RegistryDeps {
  fetch: typeof fetch;
  log: Logger;
  /** Whether an upstream model name is a reasoning model (the simulator thinks for those). */
  isReasoning: (model: string) => boolean;
  /** The catalog flags of an upstream model name (the simulator does what they claim). */
  capabilitiesOf?: (model: string) => Partial<Capabilities>;
}

/**
 * Adding a provider kind is one entry here. Kinds that are not chat providers (search,
 * scrape) are built by their own modules from the same `providers` list and skipped here.
 */
const BUILDERS: Record<string, (c: ProviderConfig, d: RegistryDeps) => ChatProvider> = {
  'openai-compatible': (c, d) => {
    if (!c.baseURL) throw new Error(`providers: "${c.id}" (openai-compatible) needs a baseURL`);
    return openAICompatible({ id: c.id, baseURL: c.baseURL, apiKey: c.apiKey, fetch: d.fetch });
  },
  simulator: (c, d) =>
    simulator({ id: c.id, options: c.options ?? {}, isReasoning: d.isReasoning, capabilitiesOf: d.capabilitiesOf, log: d.log }),
};

/** Builds the chat providers of `configs` (src/boot.ts `effectiveProviders`) and their router. */
export function createProviderRegistry(configs: ProviderConfig[], deps: RegistryDeps): ProviderRegistry {
  const built = new Map<string, { provider: ChatProvider; timeoutMs: number }>();
  for (const c of configs) {
    const build = BUILDERS[c.kind];
    if (build) built.set(c.id, { provider: build(c, deps), timeoutMs: c.timeoutMs ?? 120_000 });
  }
  return { get: (id) => built.get(id)?.provider, router: createRouter((id) => built.get(id)) };
}
