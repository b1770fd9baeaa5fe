import type { ModelEntry } from '../src/models/catalog';
import type { ModelType } from '../src/models/schema';
import type { ProviderRegistry } from './registry';
import type { Capability } from './types';

/** The capability a model of each type is called through; types without one are served by their own families. */
export const MODEL_CAPABILITY: Partial<Record<ModelType, Capability>> = {
  text: 'chat',
  embedding: 'embed',
  image: 'images',
  // Edits (inpaint) and upscales are /images/edits calls of the same capability.
  inpaint: 'images',
  upscale: 'images',
  tts: 'speech',
  asr: 'transcribe',
  video: 'jobs',
  music: 'jobs',
};

/**
 * The first route of a model whose provider cannot serve the model's type (an `embed`-less
 * provider behind an embedding model), as a message; null when every route can. Checked at
 * start, so a wrong `capabilities` list is a configuration error, not a failing request.
 */
export function capabilityMismatch(models: readonly ModelEntry[], registry: ProviderRegistry): string | null {
  for (const m of models) {
    const needed = MODEL_CAPABILITY[m.type];
    if (!needed) continue;
    for (const r of m.config.routes) {
      const provider = registry.get(r.provider);
      if (provider && !provider.capabilities.has(needed))
        return `model "${m.id}" (${m.type}) routes to provider "${r.provider}", which does not serve "${needed}" (its capabilities: ${[...provider.capabilities].join(', ') || 'none'})`;
    }
  }
  return null;
}
