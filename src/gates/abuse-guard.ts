import { Elysia } from 'elysia';
import { statusOf } from '../http/status';
import { createHash } from 'node:crypto';
import { hashSecret } from '../auth/api-keys';
import { bearerToken } from '../auth/bearer';
import type { AppDeps } from '../deps';
import type { Caller, RequestContext } from '../http/request-context';
import { createAbuseGuard, parseAbuseGuardConfig, type AbuseGuard, type AbuseIdentity } from '../limits/abuse-guard';
import { endpointId } from '../limits/types';
import { requestContext } from './request-id';

/** The part of Bun's server the guard reads: the client address. */
export interface ServerLike {
  requestIP(request: Request): { address: string } | null;
}

const guards = new WeakMap<AppDeps, AbuseGuard>();

/** The abuse guard of one instance (one per deps); tests use it to await counting. */
export function abuseGuardOf(deps: AppDeps): AbuseGuard {
  let guard = guards.get(deps);
  if (!guard) {
    guard = createAbuseGuard({ kv: deps.kv, now: deps.now, config: parseAbuseGuardConfig(deps.config.abuseGuard) });
    guards.set(deps, guard);
  }
  return guard;
}

/**
 * Refuses `caller` (429, the guard's block body, a FAILED_REQUESTS refusal logged) while its
 * account is blocked: one map lookup. Run right after authentication (the `abuseGuard` route
 * option), and by x402 pay-per-call once a payment's payer is known, before it is settled.
 */
export function refuseIfAccountBlocked(deps: AppDeps, caller: Caller, path: string): void {
  const guard = abuseGuardOf(deps);
  const until = guard.accountBlockedUntil(caller.accountId);
  if (until === 0) return;
  deps.limits.log.record({
    accountId: caller.accountId,
    apiKeyId: caller.apiKey?.id ?? null,
    modelId: endpointId(path),
    tier: caller.tier,
    type: 'FAILED_REQUESTS',
  });
  throw guard.refusal(until);
}

/** The credential a request presents (bearer or wallet sign-in header), as sent. */
function credentialOf(headers: Headers): string | null {
  return headers.get('authorization') ?? headers.get('sign-in-with-x') ?? headers.get('x-sign-in-with-x');
}

/** A fingerprint of a credential that did not authenticate; domain-separated from key hashes. */
function fingerprint(credential: string): AbuseIdentity {
  return `k:${createHash('sha256').update('abuse-guard\0').update(credential).digest('hex').slice(0, 32)}`;
}

/** What the counting hook reads of Elysia's context (`svc` is derived by the request-id gate). */
interface AfterResponse {
  request: Request;
  set: { status?: number | string; headers: Record<string, unknown> };
  responseValue: unknown;
  svc?: RequestContext;
}

/**
 * Stage 3, the abuse guard of spec 7, one named plugin:
 *
 * - Its transform hook refuses credentials and IPs that are blocked before the key lookup and
 *   before body validation; it costs nothing while no such block exists.
 * - The `abuseGuard` route option (composed by `auth` and `meter`) refuses blocked accounts
 *   right after authentication: one map lookup.
 * - The after-response hook counts non-success responses (status >= 400 except 429: a
 *   rate-limited client retrying with backoff as spec 7 asks is not abusing, and the guard's
 *   own blocks must not extend themselves; and except 499: the client closed the request and
 *   saw no failure) against the account of a valid credential, else the credential's
 *   fingerprint, else the client IP. Bad keys never count against an account.
 */
export function abuseGuardGate(deps: AppDeps, serverOf: () => ServerLike | null = () => null) {
  const guard = abuseGuardOf(deps);
  const { config } = guard;
  const plugin = new Elysia({ name: 'svc.gate.abuse-guard' }).use(requestContext);
  function clientIp(request: Request, server: ServerLike | null): string | null {
    if (config.trustForwardedFor) {
      // The last hop is the one our own proxy appended; earlier ones are client-supplied.
      const hops = request.headers.get('x-forwarded-for')?.split(',');
      const last = hops?.[hops.length - 1]?.trim();
      if (last) return last;
    }
    return server?.requestIP(request)?.address ?? null;
  }

  function anonymousIdentity(request: Request, server: ServerLike | null): AbuseIdentity | null {
    const credential = credentialOf(request.headers);
    if (credential !== null) return fingerprint(credential);
    const ip = clientIp(request, server);
    return ip ? `ip:${ip}` : null;
  }

  async function failureIdentity(
    request: Request,
    svc: RequestContext | undefined,
    server: ServerLike | null,
  ): Promise<AbuseIdentity | null> {
    if (svc?.caller) return `a:${svc.caller.accountId}`;
    // A valid key that failed before or at auth (body validation, wrong key type) is still its
    // account's failure; the lookup is a cache hit, and it only runs on failures.
    const token = bearerToken(request.headers.get('authorization'));
    if (token) {
      const key = await deps.keys.lookup(hashSecret(token));
      if (key && !(key.expiresAt && key.expiresAt.getTime() <= deps.now())) return `a:${key.accountId}`;
    }
    return anonymousIdentity(request, server);
  }

  async function countFailureOf(request: Request, svc: RequestContext | undefined, server: ServerLike | null) {
    try {
      const identity = await failureIdentity(request, svc, server);
      if (identity !== null && guard.blockedUntil(identity) === 0) await guard.countFailure(identity);
    } catch (error) {
      deps.log.warn('abuse guard: failure not counted', { requestId: svc?.requestId, error: String(error) });
    }
  }

  return (
    plugin
      // The server comes from `serverOf`, not Elysia's context: a hook that destructures
      // `server` makes Elysia define a getter on every request's context.
      .onTransform({ as: 'scoped' }, function refuseBlockedCredential({ request }) {
        if (!config.enabled || !guard.hasAnonymousBlocks()) return;
        const identity = anonymousIdentity(request, serverOf());
        const until = identity ? guard.blockedUntil(identity) : 0;
        if (until === 0) return;
        throw guard.refusal(until);
      })
      // Destructured in the signature: Elysia reads which context fields a hook uses from its
      // source, and a hook that takes the whole context makes every request parse its cookies.
      .onAfterResponse({ as: 'scoped' }, function countFailure({ request, set, responseValue, svc }: AfterResponse) {
        if (!config.enabled) return;
        const status = statusOf(set, responseValue);
        // 499: the client left before the answer (a user pressing stop); it never saw a failure.
        // 503: retryable and svc's own trouble (Redis unreachable, upstream at capacity), like a 429.
        if (status < 400 || status === 429 || status === 499 || status === 503) return;
        // A 402 with an x402 challenge (PAYMENT-REQUIRED) is the first half of a paid call, not a
        // failure: x402 clients meet one before every call they pay for.
        if (status === 402 && set.headers['payment-required'] !== undefined) return;
        return guard.track(countFailureOf(request, svc, serverOf()));
      })
      .macro({
        abuseGuard: {
          transform: function refuseBlockedAccount({ path, svc }) {
            if (svc.caller) refuseIfAccountBlocked(deps, svc.caller, path);
          },
        },
      })
  );
}
