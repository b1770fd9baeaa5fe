import { toMicros } from '../billing/money';
import type { ModelConfig, ModelTier, ModelType } from './schema';

/** Prices of a model in micro-USD: per 1M tokens for text, per unit otherwise. */
export interface ModelPrices {
  inputPerMillion: number;
  outputPerMillion: number;
  cacheInputPerMillion: number;
  cacheWritePerMillion: number;
  perUnit: number;
}

/** A catalog model with its prices parsed to micro-units, ready for the hot path. */
export interface ModelEntry {
  id: string;
  name: string;
  type: ModelType;
  tier: ModelTier;
  config: ModelConfig;
  prices: ModelPrices;
  /** True when every route of the model goes to the built-in simulator. */
  simulated: boolean;
}

/** The model catalog: lookup by id, trait or compatibility alias, and listings by type. */
export interface ModelCatalog {
  list(type?: ModelType): ModelEntry[];
  get(id: string): ModelEntry | undefined;
  /** Resolves a model id, a trait name or a compatibility-mapping key (no suffix). */
  resolve(name: string): ModelEntry | undefined;
  traits(type: ModelType): Record<string, string>;
  compatibilityMapping(type: ModelType): Record<string, string>;
}

const price = (v: string | number | undefined) => (v === undefined ? 0 : toMicros(v));

/** Builds the catalog; `simulatorProviders` names the provider ids that are simulators. */
export function createCatalog(input: {
  models: ModelConfig[];
  traits?: Record<string, Record<string, string>>;
  compatibilityMapping?: Record<string, Record<string, string>>;
  simulatorProviders: Set<string>;
}): ModelCatalog {
  const byId = new Map<string, ModelEntry>();
  for (const m of input.models) {
    if (byId.has(m.id)) throw new Error(`models: duplicate model id "${m.id}"`);
    byId.set(m.id, {
      id: m.id,
      name: m.name ?? m.id,
      type: m.type,
      tier: m.tier ?? 'S',
      config: m,
      prices: {
        inputPerMillion: price(m.pricing.input),
        outputPerMillion: price(m.pricing.output),
        cacheInputPerMillion: price(m.pricing.cacheInput ?? m.pricing.input),
        cacheWritePerMillion: price(m.pricing.cacheWrite ?? m.pricing.input),
        perUnit: price(m.pricing.perUnit),
      },
      simulated: m.routes.every((r) => input.simulatorProviders.has(r.provider)),
    });
  }
  for (const m of input.models)
    for (const f of m.fallbacks ?? []) {
      const target = byId.get(f);
      if (!target || target.type !== m.type || f === m.id)
        throw new Error(`models: model "${m.id}" falls back to "${f}", which is not another ${m.type} model of the catalog`);
    }
  const traits: Record<string, Record<string, string>> = structuredClone(input.traits ?? {});
  for (const m of input.models)
    for (const trait of m.traits) {
      traits[m.type] ??= {};
      traits[m.type]![trait] ??= m.id;
    }
  const compat = input.compatibilityMapping ?? {};
  const aliases = new Map<string, string>();
  for (const table of [...Object.values(compat), ...Object.values(traits)])
    for (const [alias, id] of Object.entries(table)) if (!aliases.has(alias)) aliases.set(alias, id);

  return {
    list: (type) => [...byId.values()].filter((m) => !type || m.type === type),
    get: (id) => byId.get(id),
    resolve(name) {
      const direct = byId.get(name);
      if (direct) return direct;
      const target = aliases.get(name);
      return target ? byId.get(target) : undefined;
    },
    traits: (type) => ({ ...(traits[type] ?? {}) }),
    compatibilityMapping: (type) => ({ ...(compat[type] ?? {}) }),
  };
}

/** Splits `model:opt=v&opt2=w` into the model name and its raw suffix (without the colon). */
export function splitModelSuffix(model: string): { base: string; suffix: string | null } {
  const at = model.indexOf(':');
  return at < 0 ? { base: model, suffix: null } : { base: model.slice(0, at), suffix: model.slice(at + 1) };
}
