import type { ApiKeyRecord } from '../auth/api-keys';
import type { MeteredUsage, SettledCost } from '../billing/meter';
import { ServiceError } from '../http/errors';
import type { Caller } from '../http/request-context';
import type { MeteredCallDeps } from '../pipeline/metered-call';
import { ModelCall, resolveModel } from '../pipeline/model-call';

/** A caller as a queued job keeps it: the key's record without its secret's hash. */
export type StoredCaller = Omit<Caller, 'apiKey'> & { apiKey: Omit<ApiKeyRecord, 'secretHash' | 'expiresAt'> | null };

/** The caller of a request as a job row keeps it (JSON, no secret hash). */
export function storedCaller(caller: Caller): StoredCaller {
  const { apiKey, ...rest } = caller;
  if (!apiKey) return { ...rest, apiKey: null };
  const { secretHash: _hash, expiresAt: _expires, ...key } = apiKey;
  return { ...rest, apiKey: key };
}

/** The caller back from a job row: what the plugins read (account, key id, its guardrails). */
const callerOf = (c: StoredCaller): Caller => ({ ...c, apiKey: c.apiKey ? { ...c.apiKey, secretHash: '', expiresAt: null } : null });

/**
 * A model call that runs later, on the reservation its request kept (`holdUntil`): `reserve`
 * resumes that reservation instead of opening one (the request admitted it, against the
 * balance and the rate limits, when it was queued), and the rest is the metered call as any
 * request runs it: routing, settlement once, release on failure. Its abort is the job's
 * (a cancel), not a client's.
 */
export class ResumedCall extends ModelCall {
  /** What the call was charged, once settled (a cancelled response reports its usage). */
  charged: { usage: MeteredUsage; cost: SettledCost } | null = null;

  /** Opens the call of `requestId`'s kept reservation for the model `name` (with its suffix), aborted by `signal`. */
  static of(deps: MeteredCallDeps, name: string, requestId: string, caller: StoredCaller, signal: AbortSignal): ResumedCall {
    const { model, suffix } = resolveModel(deps.models, name, ['text']);
    // A request of svc's own: the call wires its abort to the request's signal.
    const request = new Request('http://svc.internal/responses', { method: 'POST', signal });
    const svc = { requestId, startedAt: performance.now(), caller: callerOf(caller) };
    const call = new ResumedCall(deps, { svc, request, path: '/responses', set: { headers: {} }, server: null }, model, suffix);
    // Cancelled before the call existed: its listener never hears that abort.
    if (signal.aborted) call.cancel();
    return call;
  }

  override async reserve(): Promise<void> {
    const ticket = await this.deps.meter.resume(this.request.requestId);
    // Settled already (a run that ended but crashed before it said so), refunded or expired: nothing is held to run on.
    if (!ticket) throw new ServiceError(409, { error: 'the reservation of this background response was settled or expired' });
    this.opened(ticket);
  }

  override async settle(usage: MeteredUsage): Promise<SettledCost> {
    const cost = await super.settle(usage);
    this.charged = { usage, cost };
    return cost;
  }
}
