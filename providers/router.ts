import type { ModelEntry } from '../src/models/catalog';
import { isRetryable } from './errors';
import type { CallOptions, Capability, Provider, ProviderWith } from './types';

/** One upstream replica of a model: a provider, the name it knows the model by, and its load. */
export interface Replica {
  /** The provider id; what `x-svc-model-router` shows. */
  id: string;
  provider: Provider;
  upstreamModel: string;
  weight: number;
  timeoutMs: number;
  /** Requests currently running on this replica (streams until they end). */
  inFlight: number;
}

/** A routed call: the provider's result, the replica that gave it, and `done`, to call once the response has ended. */
export interface Routed<T> {
  result: T;
  replica: string;
  done(): void;
}

/** Calls one capability of one provider; the router passes the replica's call options. */
export type Invoke<C extends Capability, T> = (provider: ProviderWith<C>, call: CallOptions) => Promise<T>;

/** Options of one routed call. */
export interface RouteOptions {
  signal: AbortSignal;
  /** `prompt_cache_key`: the same key goes to the same replica while it is up. */
  cacheKey?: string;
  /** Told the replica id before each attempt (for the router header of a call that fails later). */
  onAttempt?: (replicaId: string) => void;
  /** Told when an attempt answered (the request's upstream time to first byte). */
  onAnswer?: () => void;
  /** The W3C `traceparent` to send upstream (tracing on), passed to the call as it is. */
  readonly traceparent?: string;
}

/** Picks replicas for a model and retries before the first byte, for any capability. */
export interface ModelRouter {
  call<C extends Capability, T>(model: ModelEntry, capability: C, invoke: Invoke<C, T>, opts: RouteOptions): Promise<Routed<T>>;
  /** The replicas of a model in the order a request would try them (for tests and docs). */
  order(model: ModelEntry, cacheKey?: string): Replica[];
}

/**
 * A call on a replica, counted in its `inFlight` until `done`. A class, not a closure per
 * attempt: one object per request on the hot path.
 */
class RoutedCall<T> implements Routed<T> {
  readonly replica: string;
  private released = false;

  constructor(
    private readonly on: Replica,
    readonly result: T,
  ) {
    this.replica = on.id;
  }

  done(): void {
    if (this.released) return;
    this.released = true;
    this.on.inFlight--;
  }
}

/** Replicas tried per request at most, so a dead fleet fails fast. */
const MAX_ATTEMPTS = 3;
const MASK_52 = (1n << 52n) - 1n;

/**
 * Weighted rendezvous (highest-random-weight) score of `key` on a replica. Every key ranks
 * every replica independently, so adding or removing a replica moves only the keys that
 * rank it first: prompt caches on the other replicas stay warm.
 */
export function rendezvousScore(key: string, replicaId: string, weight: number): number {
  const h = Number(Bun.hash.wyhash(`${key}\u0000${replicaId}`) & MASK_52);
  const u = (h + 0.5) / 2 ** 52;
  return -weight / Math.log(u);
}

/** Orders replicas for a request: by rendezvous score with a cache key, else least loaded per weight. */
export function orderReplicas(replicas: Replica[], cacheKey: string | undefined, rotation: number): Replica[] {
  if (replicas.length <= 1) return replicas;
  if (cacheKey) {
    const scored = replicas.map((r) => ({ r, s: rendezvousScore(cacheKey, r.id, r.weight) }));
    scored.sort((a, b) => b.s - a.s);
    return scored.map((x) => x.r);
  }
  // Least (inFlight + 1) / weight; the rotation breaks ties so idle replicas share the load.
  const n = replicas.length;
  const rotated = Array.from({ length: n }, (_, i) => replicas[(i + rotation) % n] as Replica);
  return rotated.sort((a, b) => (a.inFlight + 1) / a.weight - (b.inFlight + 1) / b.weight);
}

/**
 * The model router: builds each model's replicas from its `routes`, and on a connect
 * failure, 5xx or 429 before the first byte tries the next replica. It knows nothing of the
 * call itself: `invoke` makes it, so every capability gets replicas, least-loaded ordering,
 * rendezvous hashing and retry.
 */
export function createRouter(lookup: (providerId: string) => { provider: Provider; timeoutMs: number } | undefined): ModelRouter {
  const byModel = new Map<string, Replica[]>();
  let rotation = 0;

  function replicasOf(model: ModelEntry): Replica[] {
    let replicas = byModel.get(model.id);
    if (replicas) return replicas;
    replicas = model.config.routes.map((route) => {
      const p = lookup(route.provider);
      if (!p) throw new Error(`model "${model.id}" routes to provider "${route.provider}", which is not a model provider`);
      return {
        id: route.provider,
        provider: p.provider,
        upstreamModel: route.model ?? model.id,
        weight: route.weight ?? 1,
        timeoutMs: p.timeoutMs,
        inFlight: 0,
      };
    });
    byModel.set(model.id, replicas);
    return replicas;
  }

  return {
    order: (model, cacheKey) => orderReplicas(replicasOf(model), cacheKey, rotation),
    async call(model, capability, invoke, opts) {
      rotation = (rotation + 1) % 1_000_000;
      const candidates = orderReplicas(replicasOf(model), opts.cacheKey, rotation);
      let lastError: unknown;
      for (let i = 0; i < Math.min(MAX_ATTEMPTS, candidates.length); i++) {
        const replica = candidates[i] as Replica;
        const provider = replica.provider;
        if (!provider.capabilities.has(capability) || typeof provider[capability] !== 'function')
          throw new Error(`provider "${replica.id}" cannot ${capability} (model "${model.id}")`);
        replica.inFlight++;
        opts.onAttempt?.(replica.id);
        try {
          const result = await invoke(provider as ProviderWith<typeof capability>, {
            signal: opts.signal,
            upstreamModel: replica.upstreamModel,
            timeoutMs: replica.timeoutMs,
            traceparent: opts.traceparent,
          });
          opts.onAnswer?.();
          return new RoutedCall(replica, result);
        } catch (error) {
          replica.inFlight--;
          lastError = error;
          if (!isRetryable(error) || opts.signal.aborted) throw error;
        }
      }
      throw lastError;
    },
  };
}
