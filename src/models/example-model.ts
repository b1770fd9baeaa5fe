import type { ModelCatalog } from './catalog';
import { DEFAULT_MODELS } from './default-catalog';

/**
 * The model a docs-page example names on this catalog: the example's own (a default-catalog
 * id) when the catalog serves it, else this catalog's model of the same type (its `default`
 * trait first), so the first "Try it out" works on an operator's catalog too.
 */
export function exampleModelOf(catalog: ModelCatalog): (id: string) => string {
  return function exampleModel(id) {
    if (catalog.get(id)) return id;
    const type = DEFAULT_MODELS.find((m) => m.id === id)?.type;
    if (!type) return id;
    return catalog.traits(type).default ?? catalog.list(type)[0]?.id ?? id;
  };
}
