import type { WalletAuthenticator } from '../auth/wallet-authenticator';
import { Elysia } from 'elysia';
import { hashSecret, type ApiKeyRecord } from '../auth/api-keys';
import { bearerToken } from '../auth/bearer';
import type { KeyCache } from '../auth/key-cache';
import { forbidden, unauthorized } from '../http/errors';
import type { Caller, RequestContext } from '../http/request-context';
import { requestContext } from './request-id';

/**
 * Who may call a route:
 * - `INFERENCE`: the inference endpoints (every route with a `meter` option): any key, or a signed-in wallet;
 * - `ADMIN`: every other account endpoint: ADMIN keys only (an INFERENCE key gets 403, spec 2.3);
 * - `OPERATOR`: managing other accounts: ADMIN keys of the operator's account;
 * - `OPTIONAL`: public, but a presented credential is still checked.
 */
export type Access = 'OPERATOR' | 'ADMIN' | 'INFERENCE' | 'OPTIONAL';

/** What authentication needs: the key cache, the clock, and the wallet sign-in when enabled. */
export interface AuthDeps {
  keys: KeyCache;
  now: () => number;
  wallet?: WalletAuthenticator;
  /** The key hash an operator console session cookie stands for (src/console/session.ts); public routes ignore it. */
  session?: (request: Request) => Promise<string | null>;
}

/**
 * Stage 2: authentication, as the `authenticate` route option (the `auth` and `meter`
 * options compose it with the stages after it). A bearer key is hashed and looked up in the
 * key cache; wallet sign-in headers go to the wallet authenticator. A missing or bad
 * credential is 401 and never tells which part of a key was wrong; a valid key of the wrong
 * type is 403. Sign-in failures add the reference's `X402_SIGN_IN_*` code.
 */
export function authGate(deps: AuthDeps) {
  /** The caller a looked-up key stands for, or the 401/403 it earns on `access`. */
  function keyCaller(key: ApiKeyRecord | null, access: Access): Caller {
    if (!key) throw unauthorized('Authentication failed');
    if (key.expiresAt && key.expiresAt.getTime() <= deps.now()) throw unauthorized('Authentication failed: API key has expired');
    if ((access === 'ADMIN' || access === 'OPERATOR') && key.type !== 'ADMIN')
      throw forbidden('Forbidden: INFERENCE keys may call inference endpoints only; this endpoint needs an ADMIN API key');
    if (access === 'OPERATOR' && !key.operator)
      throw forbidden("Forbidden: this endpoint requires an ADMIN API key of the operator's account");
    deps.keys.touch(key.id);
    return { accountId: key.accountId, tier: key.tier, via: 'api_key', apiKey: key, wallet: null };
  }

  /**
   * The caller, at once for a bearer key the cache holds (the common request: no async step),
   * else through `authenticateSlowly`.
   */
  function authenticate(request: Request, ctx: RequestContext, access: Access): Caller | null | Promise<Caller | null> {
    const header = request.headers.get('authorization');
    const token = bearerToken(header);
    if (header !== null && token === null) throw unauthorized('Authentication failed: malformed Authorization header');
    if (token) {
      const hash = hashSecret(token);
      const cached = deps.keys.peek(hash);
      return cached !== undefined ? keyCaller(cached, access) : lookUp(hash, access);
    }
    return authenticateSlowly(request, ctx, access, header);
  }

  // Apart from `authenticate`: a closure there would give every request a scope, cache hit or not.
  function lookUp(hash: string, access: Access): Promise<Caller> {
    return deps.keys.lookup(hash).then((key) => keyCaller(key, access));
  }

  /** A request without a bearer key: a console cookie, a wallet sign-in, an x402 payment, or none. */
  async function authenticateSlowly(request: Request, ctx: RequestContext, access: Access, header: string | null): Promise<Caller | null> {
    // A console cookie stands for the ADMIN key it was opened with, and is checked as that key.
    const hash = header === null && access !== 'OPTIONAL' && deps.session ? await deps.session(request) : null;
    if (hash) return keyCaller(await deps.keys.lookup(hash), access);
    // ADMIN routes never run wallet verification, so a sign-in sent there keeps its nonce.
    if (access === 'ADMIN' || access === 'OPERATOR') {
      const signedIn = request.headers.has('sign-in-with-x') || request.headers.has('x-sign-in-with-x');
      throw unauthorized(
        signedIn ? 'Authentication failed: this endpoint requires an ADMIN API key' : 'Authentication failed: missing Authorization header',
      );
    }
    const wallet = deps.wallet ? await deps.wallet(request, ctx) : null;
    if (wallet) return wallet;
    // A caller who may pay for the call with x402 (src/gates/x402-payment.ts) goes on without one.
    if (access === 'OPTIONAL' || ctx.payment) return null;
    throw unauthorized('Authentication failed: missing Authorization header');
  }

  /** The authenticated caller on the request's context. */
  function admit(svc: RequestContext, set: { headers: Record<string, string | number> }, caller: Caller | null): void {
    svc.authEnd = performance.now();
    svc.caller = caller;
    // Spec 5.4: credentials are never refreshed mid-request here (keys and single-use
    // sign-ins have nothing to refresh), so authenticated responses say so.
    if (caller) set.headers['x-auth-refreshed'] = 'false';
  }

  async function admitLater(
    svc: RequestContext,
    set: { headers: Record<string, string | number> },
    caller: Promise<Caller | null>,
  ): Promise<void> {
    admit(svc, set, await caller);
  }

  return new Elysia({ name: 'svc.gate.auth' }).use(requestContext).macro({
    authenticate: (access: Access) => ({
      // The transform phase runs before body validation, so an anonymous caller learns
      // nothing about a route's schema and a credential flood costs no validation work.
      // Not async: a key the cache holds authenticates with no promise; Elysia awaits this
      // hook whatever it returns (its source returns a call), so the slow path's promise is awaited.
      transform: function authenticateCaller({ request, svc, set }) {
        svc.authStart = performance.now();
        const caller = authenticate(request, svc, access);
        if (!(caller instanceof Promise)) return admit(svc, set, caller);
        return admitLater(svc, set, caller);
      },
    }),
  });
}
