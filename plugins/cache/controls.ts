import { Type, type Static } from '@sinclair/typebox';
import type { CacheOptions } from './options';

const RequestMode = Type.Union([Type.Literal('use'), Type.Literal('refresh'), Type.Literal('bypass')]);

/** `svc_parameters.cache`: a mode, or `{ mode, ttl }` with the entry's lifetime in seconds (capped by the operator). */
export const cacheParameter = Type.Union(
  [
    RequestMode,
    Type.Object(
      {
        mode: Type.Optional(RequestMode),
        ttl: Type.Optional(Type.Integer({ minimum: 1, description: 'Lifetime of the stored answer in seconds.' })),
      },
      { additionalProperties: false },
    ),
  ],
  {
    description:
      'Response cache: "use" serves a stored identical answer or stores this one, "refresh" calls the model and replaces the entry, "bypass" leaves the cache alone. Default: the operator’s (bypass unless configured).',
  },
);

/** The parameter as a request sends it. */
export type CacheParameter = Static<typeof cacheParameter>;

/** What the cache does for one request. */
export interface CacheDecision {
  mode: 'use' | 'refresh' | 'bypass';
  /** Look the answer up (mode use). */
  read: boolean;
  /** Store the answer once it settled complete. */
  write: boolean;
  ttlMs: number;
}

/** The request's `Cache-Control` directives the cache honours. */
export interface CacheControl {
  noCache: boolean;
  noStore: boolean;
}

const NO_DIRECTIVES: CacheControl = Object.freeze({ noCache: false, noStore: false });

/** Parses a `Cache-Control` request header (absent: neither directive). */
export function parseCacheControl(header: string | null | undefined): CacheControl {
  // Most requests send none: no split, no arrays, one shared answer.
  if (!header) return NO_DIRECTIVES;
  const directives = header
    .toLowerCase()
    .split(',')
    .map((d) => d.trim().split('=')[0]);
  return { noCache: directives.includes('no-cache'), noStore: directives.includes('no-store') };
}

/** Sampled answers vary between calls: temperature above 0 (or the upstream's default) without a seed. */
export function nonDeterministic(req: Readonly<Record<string, unknown>>): boolean {
  const temperature = req.temperature;
  const sampled = typeof temperature !== 'number' || temperature > 0;
  return sampled && (req.seed === undefined || req.seed === null);
}

/** Who sent the request, for the per-key and per-model defaults. */
export interface DecisionInput {
  param: CacheParameter | undefined;
  cacheControl: CacheControl;
  modelId: string;
  keyId: string | null;
  /** The request as it goes upstream; absent before it is known (then sampling does not limit storing). */
  req?: Readonly<Record<string, unknown>>;
}

/**
 * The request's mode: its own `svc_parameters.cache`, else its key's default, its model's,
 * the operator's. `Cache-Control: no-cache` turns a lookup into a refresh; `no-store` keeps
 * the answer out of the cache (both: a bypass).
 */
export function decide(input: DecisionInput, options: CacheOptions): CacheDecision {
  const { param, cacheControl } = input;
  const asked = typeof param === 'string' ? param : param?.mode;
  let mode: CacheDecision['mode'] =
    asked ?? (input.keyId !== null ? options.keys[input.keyId] : undefined) ?? options.models[input.modelId] ?? options.defaultMode;
  if (!options.enabled) mode = 'bypass';
  if (mode === 'use' && cacheControl.noCache) mode = 'refresh';
  if (mode === 'refresh' && cacheControl.noStore) mode = 'bypass';
  const ttlSeconds = Math.min(typeof param === 'object' && param.ttl !== undefined ? param.ttl : options.ttlSeconds, options.maxTtlSeconds);
  const storable = !cacheControl.noStore && (options.cacheNonDeterministic || input.req === undefined || !nonDeterministic(input.req));
  return { mode, read: mode === 'use', write: mode !== 'bypass' && storable, ttlMs: ttlSeconds * 1000 };
}
