import type { ExtraCharge, MeteredUsage, MeterTicket, SettledCost, UsageMeter } from '../billing/meter';
import { formatMicros } from '../billing/money';
import { badRequest, notFound, ServiceError } from '../http/errors';
import type { RequestContext } from '../http/request-context';
import type { Logger } from '../log';
import { splitModelSuffix, type ModelCatalog, type ModelEntry } from '../models/catalog';
import { deprecationHeaders } from '../models/present';
import type { ModelType } from '../models/schema';
import { asServiceError } from '../../providers/errors';
import type { Invoke, ModelRouter, Routed } from '../../providers/router';
import type { Capability } from '../../providers/types';

/** What a route meters, declared as its `meter` route option. */
export interface MeterSpec {
  /** The model types the route accepts (a chat route takes `text`). */
  type: ModelType | readonly ModelType[];
}

/** What the metered call needs from the app: the catalog, the meter, the router and the log. */
export interface MeteredCallDeps {
  models: ModelCatalog;
  meter: UsageMeter;
  router: ModelRouter;
  log: Logger;
}

/** The parts of Elysia's context a metered call uses. */
export interface CallContext {
  svc: RequestContext;
  request: Request;
  set: { headers: Record<string, string | number> };
  server: { timeout?(request: Request, seconds: number): void } | null;
}

/** The maximum a call may consume, reserved before any paid work. */
export interface CallEstimate {
  promptTokens: number;
  completionTokens: number;
  /** Per-unit line items (images, seconds, searches) reserved on top of the tokens. */
  extras?: ExtraCharge[];
}

/** The catalog model a request names, with its raw suffix; 404 when unknown, 400 when of the wrong type. */
export function resolveModel(models: ModelCatalog, name: string, spec: MeterSpec): { model: ModelEntry; suffix: string | null } {
  const { base, suffix } = splitModelSuffix(name);
  const model = models.resolve(base);
  if (!model) throw notFound(`Model "${base}" not found. GET /models lists the available models.`);
  const types = typeof spec.type === 'string' ? [spec.type] : spec.type;
  if (!types.includes(model.type)) {
    const wanted = types.join(' or ');
    throw badRequest(`model: "${model.id}" is a ${model.type} model; this endpoint takes a ${wanted} model`, [
      { path: ['model'], message: `Expected a ${wanted} model` },
    ]);
  }
  return { model, suffix };
}

/**
 * One metered model call (DESIGN "One metered model call for every modality"): the model
 * resolved and type-checked for the route, Bun's idle timeout lifted, the client's abort
 * wired, then `reserve` (meter: rate limits, balance, key limit; balance and rate-limit
 * headers), `route` (a provider replica of the capability, retry before the first byte; model,
 * deprecation and router headers), and exactly one of `settle` or `release`. `fail` releases
 * and turns any error into the one the client sees. Families add their schema, their
 * provider capability and their response handling, nothing else.
 */
export class MeteredCall {
  /** Aborted when the client disconnects. */
  readonly signal: AbortSignal;
  private readonly abort = new AbortController();
  private ticket: MeterTicket | null = null;
  private replica = '';

  constructor(
    private readonly deps: MeteredCallDeps,
    private readonly ctx: CallContext,
    readonly model: ModelEntry,
    /** The raw `:option=value` suffix of the model name, for the family's options. */
    readonly suffix: string | null,
  ) {
    this.signal = this.abort.signal;
    // Bun's idleTimeout must not cut a stream silent between pings, or a JSON answer slower
    // than it; the provider's timeoutMs bounds the wait instead.
    ctx.server?.timeout?.(ctx.request, 0);
    ctx.request.signal?.addEventListener('abort', this.onClientGone, { once: true });
  }

  /** Opens the call for the model a request names (the `meter` route option does this). */
  static forModel(deps: MeteredCallDeps, spec: MeterSpec, name: string, ctx: CallContext): MeteredCall {
    const { model, suffix } = resolveModel(deps.models, name, spec);
    return new MeteredCall(deps, ctx, model, suffix);
  }

  /** The request's context (request id, caller, start time). */
  get request(): RequestContext {
    return this.ctx.svc;
  }

  /** The response headers (Elysia merges them into the response once). */
  get headers(): Record<string, string | number> {
    return this.ctx.set.headers;
  }

  private readonly onClientGone = () => this.abort.abort();

  /** Aborts the upstream call (the client left, or a stream's consumer cancelled). */
  cancel(): void {
    this.abort.abort();
  }

  /**
   * Reserves the call's maximum cost and admits it against the model's rate limits (throws
   * 402 or 429 before any upstream call), and sets the balance and rate-limit headers.
   */
  async reserve(estimate: CallEstimate): Promise<void> {
    this.ticket = await this.deps.meter.open({
      ctx: this.ctx.svc,
      model: this.model,
      estimatedPromptTokens: estimate.promptTokens,
      maxCompletionTokens: estimate.completionTokens,
      extras: estimate.extras ?? [],
    });
    Object.assign(this.ctx.set.headers, this.ticket.headers);
  }

  /**
   * Calls `capability` on a replica of the model: least loaded, or by `cacheKey`, and on to
   * the next replica on a retryable failure before the first byte. Sets the model headers.
   */
  route<C extends Capability, T>(capability: C, invoke: Invoke<C, T>, opts: { cacheKey?: string } = {}): Promise<Routed<T>> {
    const headers = this.ctx.set.headers;
    headers['x-svc-model-id'] = this.model.id;
    headers['x-svc-model-name'] = this.model.name;
    Object.assign(headers, deprecationHeaders(this.model));
    return this.deps.router.call(this.model, capability, invoke, {
      signal: this.signal,
      cacheKey: opts.cacheKey,
      onAttempt: (id) => {
        this.replica = id;
        headers['x-svc-model-router'] = id;
      },
    });
  }

  /** The replica last tried (the router header of a call whose answer has not come yet). */
  get lastReplica(): string {
    return this.replica;
  }

  /** Charges what was produced and releases the rest of the reservation; once. */
  async settle(usage: MeteredUsage): Promise<SettledCost> {
    this.end();
    return this.openTicket().settle(usage);
  }

  /** Releases the reservation without charging (nothing was produced); once. */
  async release(): Promise<void> {
    this.end();
    await this.ticket?.release();
  }

  /**
   * Releases the reservation and throws the error the client should see: a ServiceError as
   * it is, 499 when the client left, else the upstream error (logged).
   */
  async fail(error: unknown): Promise<never> {
    await this.release();
    if (error instanceof ServiceError) throw error;
    if (this.signal.aborted) throw new ServiceError(499, { error: 'Client closed the request' });
    this.deps.log.error('upstream call failed', { requestId: this.ctx.svc.requestId, model: this.model.id, error: String(error) });
    throw asServiceError(error);
  }

  /**
   * A wallet caller's `X-Balance-Remaining` after a charge known before the headers go out
   * (a JSON answer): the balance before the request, as a number, less the charge.
   */
  chargeBeforeHeaders(settled: SettledCost): void {
    const before = this.ticket?.balances.usdc;
    if (before !== undefined) this.ctx.set.headers['x-balance-remaining'] = formatMicros(before - settled.usdMicros);
  }

  /** Detaches the client's abort listener (the call is over). */
  end(): void {
    this.ctx.request.signal?.removeEventListener('abort', this.onClientGone);
  }

  private openTicket(): MeterTicket {
    if (!this.ticket) throw new Error('metered call: settle before reserve');
    return this.ticket;
  }
}
