import { invalidFields, ServiceError, upstreamError, type FieldProblem } from '../http/errors';
import type { KeyValueStore } from '../kv/store';
import type { MeteredCall } from '../pipeline/metered-call';
import type { RpcNetwork } from '../../providers/rpc/networks';
import { NodeFailure } from '../../providers/rpc/node';
import { relayAnswer, type RpcAnswer } from './answer';
import type { RpcConfig } from './config';
import { holdDailyCredits } from './daily-cap';
import type { StoredAnswer } from './idempotency';
import { BASE_CREDITS, ERROR_CREDITS, methodTier } from './methods';
import { costHeader, creditCharges, sumCredits } from './pricing';
import type { RpcRequest } from './request';

/** What a proxied call needs besides its metered call. */
export interface ProxyDeps {
  config: RpcConfig;
  kv: KeyValueStore;
  now: () => number;
  creditPico: bigint;
}

/**
 * The credits of each call if it succeeds (its method's tier × the family's base). Throws
 * one 400 that names every refused method of the request (a batch is refused whole).
 */
export function plannedCredits(network: RpcNetwork, request: RpcRequest): number[] {
  const base = BASE_CREDITS[network.family];
  const refused: FieldProblem[] = [];
  const credits = request.calls.map((call, i) => {
    const tier = methodTier(call.method, network.family, network.allowed, network.id);
    if (typeof tier === 'string') refused.push({ path: request.batch ? [i, 'method'] : ['method'], message: tier });
    return typeof tier === 'number' ? base * tier : 0;
  });
  if (refused.length > 0) throw invalidFields(refused);
  return credits;
}

/**
 * A failed correction of the daily cap is left alone: the request keeps counting what it
 * reserved (at least what it used), and the client's answer or error is the one that matters.
 */
const ignore = () => {};

/** The 502 of a call no node answered, with the last node's reason. */
function nodesFailed(network: RpcNetwork, last: NodeFailure): ServiceError {
  const which = last.skip ? `no node of ${network.id} answered` : `the call to ${network.id} failed`;
  return upstreamError(502, `Upstream error: ${which} (${last.body.error}); nothing was charged. Please retry.`);
}

/** `X-RateLimit-Limit/Remaining/Reset` of a 429 (the reference's names, set only when refused) from the meter's request-limit headers. */
function aliasRateLimitHeaders(headers: Record<string, string | number>): void {
  const limit = headers['x-ratelimit-limit-requests'];
  if (limit === undefined) return;
  headers['x-ratelimit-limit'] = limit;
  headers['x-ratelimit-remaining'] = headers['x-ratelimit-remaining-requests']!;
  headers['x-ratelimit-reset'] = headers['x-ratelimit-reset-requests']!;
}

/**
 * One proxied request on the metered call: the daily credit cap and the reservation of every
 * call at its tier (402/429 before any node is asked; RPC's own per-minute limit), the nodes
 * with failover, then one settlement of the calls' credits (a call answered with a JSON-RPC
 * error costs ERROR_CREDITS). Any failure releases both: nothing is charged.
 */
export async function proxyRpc(deps: ProxyDeps, network: RpcNetwork, request: RpcRequest, call: MeteredCall): Promise<StoredAnswer> {
  const planned = plannedCredits(network, request);
  const caller = call.request.caller!;
  const cap = await holdDailyCredits(deps.kv, {
    accountId: caller.accountId,
    credits: sumCredits(planned),
    cap: deps.config.dailyCreditCap,
    now: deps.now(),
  });
  try {
    await call.reserve({
      promptTokens: 0,
      completionTokens: 0,
      extras: creditCharges(network.id, planned, deps.creditPico),
      routeLimit: { scope: 'rpc', rpm: deps.config.requestsPerMinute },
    });
  } catch (error) {
    await cap.release().catch(ignore);
    if (error instanceof ServiceError) aliasRateLimitHeaders(error.headers);
    throw error;
  }
  let answer: RpcAnswer;
  try {
    const o = {
      signal: call.signal,
      timeoutMs: deps.config.timeoutMs,
      maxBytes: deps.config.maxResponseBytes,
      traceparent: call.upstreamCalled(),
    };
    answer = await network.pool.call(request.text, o, (text) => relayAnswer(request, text));
    call.upstreamAnswered();
  } catch (error) {
    await cap.release().catch(ignore);
    return call.fail(error instanceof NodeFailure ? nodesFailed(network, error) : error);
  }
  const credits = planned.map((c, i) => (answer.errors[i] ? Math.min(c, ERROR_CREDITS) : c));
  const total = sumCredits(credits);
  const executionMs = Math.round(performance.now() - call.request.startedAt);
  const settled = await call.settle({
    promptTokens: 0,
    completionTokens: 0,
    extras: creditCharges(network.id, credits, deps.creditPico),
    executionMs,
  });
  call.chargeBeforeHeaders(settled);
  await cap.settle(total).catch(ignore);
  return { text: answer.text, credits: total, costUsd: costHeader(settled.usdMicros) };
}
