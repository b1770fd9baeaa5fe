import type { ModelCatalog } from '../../src/models/catalog';
import type { Capabilities } from '../../src/models/schema';

/**
 * The catalog flags by upstream model name, for the simulator: it is called with the name
 * a route sends upstream and does what that model's flags claim (and nothing more).
 */
export function upstreamCapabilities(models: ModelCatalog): (upstreamModel: string) => Partial<Capabilities> {
  const byName = new Map<string, Partial<Capabilities>>();
  for (const m of models.list('text'))
    for (const r of m.config.routes) if (!byName.has(r.model ?? m.id)) byName.set(r.model ?? m.id, m.config.capabilities ?? {});
  return (name) => byName.get(name) ?? {};
}
