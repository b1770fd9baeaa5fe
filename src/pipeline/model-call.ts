import { badRequest, notFound } from '../http/errors';
import { splitModelSuffix, type ModelCatalog, type ModelEntry } from '../models/catalog';
import { deprecationHeaders } from '../models/present';
import type { ModelType } from '../models/schema';
import type { MeteredUsage, SettledCost } from '../billing/meter';
import { pricingOf, reservationMicros } from '../billing/pricing';
import { isRetryable } from '../../providers/errors';
import type { Invoke, Routed } from '../../providers/router';
import type { Capability } from '../../providers/types';
import { MeteredCall, type CallContext, type CallEstimate, type MeteredCallDeps } from './metered-call';

/** What a model route meters, declared as its `meter` route option. */
export interface MeterSpec {
  /** The model types the route accepts (a chat route takes `text`). */
  type: ModelType | readonly ModelType[];
}

/** The model types a route accepts, as a list (computed once per route, not per request). */
export const acceptedTypes = (spec: MeterSpec): readonly ModelType[] => (typeof spec.type === 'string' ? [spec.type] : spec.type);

/** The catalog model a request names, with its raw suffix; 404 when unknown, 400 when not of the route's `types`. */
export function resolveModel(
  models: ModelCatalog,
  name: string,
  types: readonly ModelType[],
): { model: ModelEntry; suffix: string | null } {
  const { base, suffix } = splitModelSuffix(name);
  const model = models.resolve(base);
  if (!model) throw notFound(`Model "${base}" not found. GET /models lists the available models.`);
  if (!types.includes(model.type)) {
    const wanted = types.join(' or ');
    throw badRequest(`model: "${model.id}" is a ${model.type} model; this endpoint takes a ${wanted} model`, [
      { path: ['model'], message: `Expected a ${wanted} model` },
    ]);
  }
  return { model, suffix };
}

const headersOfModel = new WeakMap<ModelEntry, Record<string, string>>();

/** The model's response headers (id, name, deprecation), built once per catalog entry. */
function modelHeaders(model: ModelEntry): Record<string, string> {
  let headers = headersOfModel.get(model);
  if (!headers) {
    headers = { 'x-svc-model-id': model.id, 'x-svc-model-name': model.name, ...deprecationHeaders(model) };
    headersOfModel.set(model, headers);
  }
  return headers;
}

/** A fallback as a request names it: a model id, or the reference's `{ model }` object. */
export type FallbackName = string | { model: string };

/**
 * A metered call of a catalog model: the model resolved and type-checked for the route, the
 * reservation admitted against the model's own rate limits and priced at its prices, and
 * `route` to a provider replica of the capability (retry before the first byte; model,
 * deprecation and router headers). With fallbacks, `route` moves to the next model when every
 * replica of one is at capacity or failing before the first byte; the reservation is priced
 * at the dearest candidate and the settlement at the model that answered. Families add their
 * schema, their provider capability and their response handling, nothing else.
 */
export class ModelCall extends MeteredCall {
  /** The models `route` tries in order: the requested one, then its fallbacks. */
  private candidates: readonly ModelEntry[];
  /** The model that answered: the requested one until a fallback does. */
  answered: ModelEntry;

  constructor(
    deps: MeteredCallDeps,
    ctx: CallContext,
    readonly model: ModelEntry,
    /** The raw `:option=value` suffix of the model name, for the family's options. */
    readonly suffix: string | null,
  ) {
    super(deps, ctx);
    this.answered = model;
    if (ctx.svc.trace) ctx.svc.trace.requestModel = model.id;
    this.candidates = configuredCandidates(deps.models, model);
  }

  /**
   * Sets the fallbacks a request names (`field`, e.g. `fallbacks`), replacing the model's
   * configured ones: 400 naming the entry when one is unknown or of another type. Call before `reserve`.
   */
  useFallbacks(names: readonly FallbackName[] | undefined, field: string): void {
    if (names) this.candidates = fallbacksOf(this.deps.models, this.model, names, field);
  }

  /** Opens the call for the model a request names, of one of the route's model `types` (the `meter` route option does this). */
  static forModel(deps: MeteredCallDeps, types: readonly ModelType[], name: string, ctx: CallContext): ModelCall {
    const { model, suffix } = resolveModel(deps.models, name, types);
    return new ModelCall(deps, ctx, model, suffix);
  }

  /** Reserves against the model's rate limits (requests and tokens), at the prices of the dearest candidate. */
  override reserve(estimate: CallEstimate): Promise<void> | undefined {
    const priceAs = this.candidates.length > 1 ? dearest(this.candidates, estimate) : this.model;
    return this.open(this.model, undefined, priceAs === this.model ? undefined : priceAs, estimate);
  }

  /** Charges what was produced, at the prices of the model that answered. */
  override settle(usage: MeteredUsage): Promise<SettledCost> {
    return super.settle(this.answered === this.model ? usage : { ...usage, model: this.answered });
  }

  /** The request's `prompt_cache_key` while routing: the call is its own route options (no options object or closure a call). */
  cacheKey: string | undefined = undefined;

  /** A plugin answered instead of a provider (a cached answer): the requested model's headers, and no route. */
  answeredLocally(): void {
    Object.assign(this.ctx.set.headers, modelHeaders(this.model));
  }

  /** Shows the replica being tried (the router header of a call that fails later); the first attempt starts the upstream stage. */
  onAttempt(replicaId: string): void {
    this.ctx.set.headers['x-svc-model-router'] = replicaId;
    this.ctx.svc.upstreamStart ||= performance.now();
  }

  /** The upstream's answer is in hand (a stream: its first content): the upstream's time to first byte. */
  onAnswer(): void {
    this.upstreamAnswered();
  }

  /**
   * Calls `capability` on a replica of the model: least loaded, or by `cacheKey`, and on to
   * the next replica on a retryable failure before the first byte; when all of them failed
   * so, on to the next fallback model. Sets the headers of the model being tried. Without
   * fallbacks (most calls) the router's promise is returned as it is: no async step.
   */
  route<C extends Capability, T>(capability: C, invoke: Invoke<C, T>, cacheKey?: string): Promise<Routed<T>> {
    this.cacheKey = cacheKey;
    if (this.candidates.length > 1) return this.routeWithFallbacks(capability, invoke);
    Object.assign(this.ctx.set.headers, modelHeaders(this.model));
    return this.deps.router.call(this.model, capability, invoke, this);
  }

  /** `route` over the candidates in order, each model's headers replacing the previous one's. */
  private async routeWithFallbacks<C extends Capability, T>(capability: C, invoke: Invoke<C, T>): Promise<Routed<T>> {
    const headers = this.ctx.set.headers;
    let shown: Record<string, string> | null = null;
    for (let i = 0; ; i++) {
      const model = this.candidates[i] as ModelEntry;
      if (shown) for (const name in shown) delete headers[name];
      shown = modelHeaders(model);
      Object.assign(headers, shown);
      try {
        const routed = await this.deps.router.call(model, capability, invoke, this);
        this.answered = model;
        return routed;
      } catch (error) {
        if (i + 1 >= this.candidates.length || !isRetryable(error) || this.signal.aborted) throw error;
        this.deps.log.warn('model unavailable, falling back', {
          requestId: this.ctx.svc.requestId,
          model: model.id,
          next: this.candidates[i + 1]!.id,
        });
      }
    }
  }
}

/**
 * The candidate whose reservation for `estimate` costs most (the first of equals). Apart from
 * `reserve`: a closure there would give every reservation a scope, fallbacks or not.
 */
function dearest(candidates: readonly ModelEntry[], estimate: CallEstimate): ModelEntry {
  const most = (m: ModelEntry) => reservationMicros(pricingOf(m), estimate.promptTokens, estimate.completionTokens);
  let priceAs = candidates[0]!;
  for (const m of candidates) if (most(m) > most(priceAs)) priceAs = m;
  return priceAs;
}

const candidatesOfModel = new WeakMap<ModelEntry, readonly ModelEntry[]>();

/** `model` and its configured fallbacks, resolved once per catalog entry (the catalog is built once). */
function configuredCandidates(models: ModelCatalog, model: ModelEntry): readonly ModelEntry[] {
  let candidates = candidatesOfModel.get(model);
  if (!candidates) {
    candidates = fallbacksOf(models, model, model.config.fallbacks ?? [], null);
    candidatesOfModel.set(model, candidates);
  }
  return candidates;
}

/** `model` followed by the distinct models `names` resolve to; `field` names a request's list in its 400s (null: config, checked at start). */
function fallbacksOf(models: ModelCatalog, model: ModelEntry, names: readonly FallbackName[], field: string | null): ModelEntry[] {
  const out = [model];
  names.forEach((entry, i) => {
    const name = typeof entry === 'string' ? entry : entry.model;
    const found = models.resolve(name);
    if (!found || found.type !== model.type) {
      if (field === null) return;
      const why = found ? `is of type ${found.type}, not ${model.type}` : 'is not a model of the catalog';
      // Quoted short: a field may hold a megabyte of text, which an error need not echo.
      const shown = name.length > 100 ? `${name.slice(0, 100)}...` : name;
      throw badRequest(`${field}[${i}]: "${shown}" ${why}`, [{ path: [field, i], message: `Expected a ${model.type} model id` }]);
    }
    if (!out.includes(found)) out.push(found);
  });
  return out;
}
