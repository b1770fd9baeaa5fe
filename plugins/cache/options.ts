import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

const Mode = Type.Union([Type.Literal('use'), Type.Literal('bypass')]);

/** A hit's price: a fraction of what the original answer cost, plus a fixed price per hit. */
const Price = Type.Object(
  {
    fraction: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: 'Share of the original answer’s cost (0.1 = 10 %).' })),
    micros: Type.Optional(Type.Integer({ minimum: 0, description: 'Fixed price per hit in micro-USD.' })),
  },
  { additionalProperties: false },
);

/** The cache's operator options (`plugins: [{ name: cache, options: {...} }]`), defaults applied at start. */
export const cacheOptions = {
  enabled: Type.Boolean({ default: true, description: 'false turns the cache off: every request bypasses it, whatever it asks.' }),
  defaultMode: Type.Union([Type.Literal('use'), Type.Literal('bypass')], {
    default: 'bypass',
    description: 'The mode of a request that does not choose one: bypass (the cache is used on request) or use.',
  }),
  models: Type.Record(Type.String(), Mode, { default: {}, description: 'Default mode per catalog model id.' }),
  keys: Type.Record(Type.String(), Mode, { default: {}, description: 'Default mode per API key id (beats the model’s).' }),
  ttlSeconds: Type.Integer({ minimum: 1, default: 300, description: 'Lifetime of an entry when the request names none.' }),
  maxTtlSeconds: Type.Integer({ minimum: 1, default: 86_400, description: 'Cap on a request’s `ttl`.' }),
  maxEntryBytes: Type.Integer({ minimum: 1, default: 1_048_576, description: 'Answers larger than this (JSON bytes) are not stored.' }),
  compressAboveBytes: Type.Integer({ minimum: 0, default: 1024, description: 'Entries larger than this are stored deflated.' }),
  cacheNonDeterministic: Type.Boolean({
    default: true,
    description: 'Whether answers sampled with temperature > 0 (or unset) and no seed are stored.',
  }),
  scope: Type.Union([Type.Literal('account'), Type.Literal('key')], {
    default: 'account',
    description: 'Who shares entries: every key of an account, or each key alone.',
  }),
  sharedNamespaces: Type.Record(Type.String(), Type.Array(Type.String()), {
    default: {},
    description: 'Namespaces shared across accounts that opt in: name → account ids.',
  }),
  countCachedTokens: Type.Boolean({
    default: true,
    description:
      'Whether a hit counts against token rate limits (TPM) at the original answer’s usage; false: a hit counts 0 tokens (RPM still applies).',
  }),
  price: Type.Object(Price.properties, { additionalProperties: false, default: {}, description: 'Price of a hit (default free).' }),
  prices: Type.Record(Type.String(), Price, { default: {}, description: 'Price of a hit per catalog model id (beats `price`).' }),
  herdWaitMs: Type.Integer({
    minimum: 0,
    default: 10_000,
    description:
      'How long identical concurrent misses wait for the first one’s answer before calling the upstream themselves (keep it under the plugin’s hook budget, `pluginTimeoutMs`).',
  }),
  storeTimeoutMs: Type.Integer({
    minimum: 1,
    default: 250,
    description: 'A store call slower than this counts as an outage: the request bypasses the cache (a write: the answer is not stored).',
  }),
};

const schema = Type.Object(cacheOptions);

/** The cache's options as its hooks read them. */
export type CacheOptions = Static<typeof schema>;

/** The options with every default applied, as the loader applies them at start (tests and the pure modules). */
export function withDefaults(partial: Partial<CacheOptions> = {}): CacheOptions {
  return Value.Default(schema, structuredClone(partial)) as CacheOptions;
}
