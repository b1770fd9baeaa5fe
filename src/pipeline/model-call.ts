import { badRequest, notFound } from '../http/errors';
import { splitModelSuffix, type ModelCatalog, type ModelEntry } from '../models/catalog';
import { deprecationHeaders } from '../models/present';
import type { ModelType } from '../models/schema';
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

/**
 * A metered call of a catalog model: the model resolved and type-checked for the route, the
 * reservation admitted against the model's own rate limits and priced at its prices, and
 * `route` to a provider replica of the capability (retry before the first byte; model,
 * deprecation and router headers). Families add their schema, their provider capability and
 * their response handling, nothing else.
 */
export class ModelCall extends MeteredCall {
  constructor(
    deps: MeteredCallDeps,
    ctx: CallContext,
    readonly model: ModelEntry,
    /** The raw `:option=value` suffix of the model name, for the family's options. */
    readonly suffix: string | null,
  ) {
    super(deps, ctx);
  }

  /** Opens the call for the model a request names, of one of the route's model `types` (the `meter` route option does this). */
  static forModel(deps: MeteredCallDeps, types: readonly ModelType[], name: string, ctx: CallContext): ModelCall {
    const { model, suffix } = resolveModel(deps.models, name, types);
    return new ModelCall(deps, ctx, model, suffix);
  }

  /** Reserves against the model's rate limits (requests and tokens) and prices. */
  override reserve(estimate: CallEstimate): Promise<void> {
    return this.open({ model: this.model }, estimate);
  }

  /**
   * Calls `capability` on a replica of the model: least loaded, or by `cacheKey`, and on to
   * the next replica on a retryable failure before the first byte. Sets the model headers.
   */
  route<C extends Capability, T>(capability: C, invoke: Invoke<C, T>, opts: { cacheKey?: string } = {}): Promise<Routed<T>> {
    const headers = this.ctx.set.headers;
    Object.assign(headers, modelHeaders(this.model));
    return this.deps.router.call(this.model, capability, invoke, {
      signal: this.signal,
      cacheKey: opts.cacheKey,
      onAttempt: (id) => {
        headers['x-svc-model-router'] = id;
      },
    });
  }
}
