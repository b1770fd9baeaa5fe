import type { ExtraCharge, MeteredUsage, MeterOpenInput, MeterTicket, SettledCost, UsageMeter } from '../billing/meter';
import { formatMicros } from '../billing/money';
import { ServiceError } from '../http/errors';
import type { RequestContext } from '../http/request-context';
import type { RouteLimit } from '../limits/types';
import type { Logger } from '../log';
import type { ModelCatalog, ModelEntry } from '../models/catalog';
import { asServiceError } from '../../providers/errors';
import type { ModelRouter } from '../../providers/router';

/** No line items: shared (the meter only reads it). */
const NO_EXTRAS: ExtraCharge[] = [];

/** Listener options, shared rather than an object per call. */
const ONCE: AddEventListenerOptions = { once: true };

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
  /** The route's path: the endpoint whose account-wide limit admits a call without a model. */
  path: string;
  set: { headers: Record<string, string | number> };
  server: { timeout?(request: Request, seconds: number): void } | null;
}

/** The maximum a call may consume, reserved before any paid work. */
export interface CallEstimate {
  promptTokens: number;
  completionTokens: number;
  /** Prompt tokens held beyond `promptTokens` where the balance is ample (an upstream tokenizer that counts more than svc's); never needed to admit. */
  marginPromptTokens?: number;
  /** Per-unit line items (images, seconds, searches, RPC credits) reserved on top of the tokens. */
  extras?: ExtraCharge[];
  /** Keep the reservation past this request until then (epoch ms): a job that settles later (`meter.resume`). */
  holdUntil?: number;
  /** A call without a model: the route's own account-wide limit (crypto RPC), instead of `rateLimits.apiRpm`. */
  routeLimit?: RouteLimit;
}

/**
 * One metered call (DESIGN "One metered model call for every modality"): Bun's idle timeout
 * lifted and the client's abort wired, then `reserve` (meter: rate limits, balance, key
 * limit; balance and rate-limit headers), the family's work, and exactly one of `settle` or
 * `release`. `fail` releases and turns any error into the one the client sees. This base is
 * a call priced by its line items alone (RPC credits, augment calls); `ModelCall` adds the
 * catalog model and routing to its providers.
 */
export class MeteredCall {
  /** Aborted when the client disconnects. */
  readonly signal: AbortSignal;
  private readonly abort = new AbortController();
  private ticket: MeterTicket | null = null;

  constructor(
    protected readonly deps: MeteredCallDeps,
    protected readonly ctx: CallContext,
  ) {
    this.signal = this.abort.signal;
    // Bun's idleTimeout must not cut a stream silent between pings, or a JSON answer slower
    // than it; the provider's timeoutMs bounds the wait instead.
    ctx.server?.timeout?.(ctx.request, 0);
    // The call is the listener (`handleEvent`): no closure per call.
    ctx.request.signal?.addEventListener('abort', this, ONCE);
  }

  /** The request's context (request id, caller, start time). */
  get request(): RequestContext {
    return this.ctx.svc;
  }

  /** The client's request headers. */
  get clientHeaders(): Headers {
    return this.ctx.request.headers;
  }

  /** The response headers (Elysia merges them into the response once). */
  get headers(): Record<string, string | number> {
    return this.ctx.set.headers;
  }

  /** The W3C `traceparent` an upstream is sent when tracing is on (the request's upstream span); undefined when off. */
  get traceparent(): string | undefined {
    return this.ctx.svc.trace?.upstreamTraceparent;
  }

  /**
   * An upstream call outside the model router starts (RPC nodes, search engines): the first
   * one starts the request's upstream stage (the trace's client span). Returns the
   * `traceparent` to send it.
   */
  upstreamCalled(): string | undefined {
    this.ctx.svc.upstreamStart ||= performance.now();
    return this.ctx.svc.trace?.upstreamTraceparent;
  }

  /** That upstream call answered: the request's upstream time to first byte. */
  upstreamAnswered(): void {
    this.ctx.svc.upstreamFirstByte = performance.now();
  }

  /** The client left: aborts the upstream call. */
  handleEvent(): void {
    this.abort.abort();
  }

  /** Aborts the upstream call (the client left, or a stream's consumer cancelled). */
  cancel(): void {
    this.abort.abort();
  }

  /**
   * Reserves the call's maximum cost and admits it (throws 402 or 429 before any upstream
   * call), and sets the balance and rate-limit headers. Without a model, the route's
   * account-wide limit admits it and only the line items cost.
   */
  reserve(estimate: CallEstimate): Promise<void> | undefined {
    return this.open(null, this.ctx.path, undefined, estimate);
  }

  /**
   * Opens the meter for `model` (or `endpoint`) with `estimate`, and takes its headers: at
   * once when the meter answered at once (undefined then), else one `then` on its promise.
   * Arguments, not a target object: one object less a call.
   */
  protected open(
    model: MeterOpenInput['model'],
    endpoint: string | undefined,
    priceAs: ModelEntry | undefined,
    estimate: CallEstimate,
  ): Promise<void> | undefined {
    const ticket = this.deps.meter.open({
      ctx: this.ctx.svc,
      model,
      endpoint,
      priceAs,
      estimatedPromptTokens: estimate.promptTokens,
      marginPromptTokens: estimate.marginPromptTokens,
      maxCompletionTokens: estimate.completionTokens,
      extras: estimate.extras ?? NO_EXTRAS,
      holdUntil: estimate.holdUntil,
      routeLimit: estimate.routeLimit,
    });
    if (ticket instanceof Promise) return openedLater(this, ticket);
    this.opened(ticket);
    return undefined;
  }

  /** Keeps the ticket and takes its headers. */
  opened(ticket: MeterTicket): void {
    this.ticket = ticket;
    Object.assign(this.ctx.set.headers, ticket.headers);
  }

  /** Charges what was produced and releases the rest of the reservation; once. */
  settle(usage: MeteredUsage): Promise<SettledCost> {
    if (!this.ticket) throw new Error('metered call: settle before reserve');
    return this.ticket.settle(usage);
  }

  /** Releases the reservation without charging (nothing was produced); once. */
  async release(): Promise<void> {
    await this.ticket?.release();
  }

  /**
   * Releases the reservation and throws the error the client should see: a ServiceError as
   * it is, 499 when the client left, else the upstream error (logged).
   */
  async fail(error: unknown): Promise<never> {
    this.end();
    await this.release();
    if (error instanceof ServiceError) throw error;
    if (this.signal.aborted) throw new ServiceError(499, { error: 'Client closed the request' });
    this.deps.log.error('upstream call failed', { requestId: this.ctx.svc.requestId, path: this.ctx.path, error: String(error) });
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

  /**
   * Detaches the client's abort listener: a stream that ended, or a failed call. A JSON answer
   * skips it (measured ~1 µs per request): once answered, the request and its listener are
   * garbage together, and an abort after the answer aborts nothing.
   */
  end(): void {
    this.ctx.request.signal?.removeEventListener('abort', this);
  }
}

/** A ticket the meter answered with a promise, taken when it comes (apart from `open`: its closure would give every call a scope). */
function openedLater(call: MeteredCall, ticket: Promise<MeterTicket>): Promise<void> {
  return ticket.then((t) => call.opened(t));
}
