import { Elysia } from 'elysia';
import { hashSecret } from '../auth/api-keys';
import type { KeyCache } from '../auth/key-cache';
import { unauthorized, type ServiceError } from '../http/errors';
import type { Caller, RequestContext } from '../http/request-context';
import { requestContext } from './request-id';

/**
 * Who may call a route: `OPERATOR` (ADMIN keys of the operator's account: managing other
 * accounts), `ADMIN` (ADMIN keys only), `INFERENCE` (any key or a signed-in wallet),
 * `OPTIONAL` (public, but a presented credential is still checked).
 */
export type Access = 'OPERATOR' | 'ADMIN' | 'INFERENCE' | 'OPTIONAL';

/**
 * A pipeline stage that runs right after authentication on every route with an `auth`
 * option, in the order given (abuse guard, then rate limit). It may throw a ServiceError
 * (429) or set response headers.
 */
export type AfterAuthStage = (input: {
  request: Request;
  path: string;
  svc: RequestContext;
  set: { headers: Record<string, string | number> };
  access: Access;
}) => void | Promise<void>;

/** Alternative authenticators (SIGN-IN-WITH-X) tried when no bearer key is sent. */
export type WalletAuthenticator = (request: Request, ctx: RequestContext) => Promise<Caller | null>;

function bearerToken(header: string | null): string | null {
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}

/**
 * Stage 2: authentication as a route option, `{ auth: 'ADMIN' | 'INFERENCE' | 'OPTIONAL' }`.
 * A bearer key is hashed and looked up in the key cache; wallet sign-in headers are handed
 * to the wallet authenticator. Key failures are 401 StandardErrors that never tell which part
 * of a key was wrong; sign-in failures add the reference's `X402_SIGN_IN_*` code.
 */
export function authGate(deps: {
  keys: KeyCache;
  now: () => number;
  wallet?: WalletAuthenticator;
  after?: AfterAuthStage[];
  /** The x402 discovery 402 for a caller with no credential at all (src/x402/discovery.ts); null keeps the 401. */
  discovery?: (request: Request, path: string) => ServiceError | null;
}) {
  const after = deps.after ?? [];
  async function authenticate(request: Request, ctx: RequestContext, access: Access): Promise<Caller | null> {
    const header = request.headers.get('authorization');
    const token = bearerToken(header);
    if (header !== null && token === null) throw unauthorized('Authentication failed: malformed Authorization header');
    if (token) {
      const key = await deps.keys.lookup(hashSecret(token));
      if (!key) throw unauthorized('Authentication failed');
      if (key.expiresAt && key.expiresAt.getTime() <= deps.now()) throw unauthorized('Authentication failed: API key has expired');
      const admin = access === 'ADMIN' || access === 'OPERATOR';
      if (admin && key.type !== 'ADMIN') throw unauthorized('Authentication failed: this endpoint requires an ADMIN API key');
      if (access === 'OPERATOR' && !key.operator)
        throw unauthorized("Authentication failed: this endpoint requires an ADMIN API key of the operator's account");
      deps.keys.touch(key.id);
      return { accountId: key.accountId, tier: key.tier, via: 'api_key', apiKey: key, wallet: null };
    }
    // ADMIN routes never run wallet verification, so a sign-in sent there keeps its nonce.
    if (access === 'ADMIN' || access === 'OPERATOR') {
      const signedIn = request.headers.has('sign-in-with-x') || request.headers.has('x-sign-in-with-x');
      throw unauthorized(
        signedIn ? 'Authentication failed: this endpoint requires an ADMIN API key' : 'Authentication failed: missing Authorization header',
      );
    }
    const wallet = deps.wallet ? await deps.wallet(request, ctx) : null;
    if (wallet) return wallet;
    if (access === 'OPTIONAL') return null;
    throw deps.discovery?.(request, new URL(request.url).pathname) ?? unauthorized('Authentication failed: missing Authorization header');
  }

  return new Elysia({ name: 'svc.gate.auth' }).use(requestContext).macro({
    auth: (access: Access) => ({
      // The transform phase runs before body validation, so an anonymous caller learns
      // nothing about a route's schema and a credential flood costs no validation work.
      async transform({ request, path, svc, set }) {
        svc.caller = await authenticate(request, svc, access);
        // Spec 5.4: credentials are never refreshed mid-request here (keys and single-use
        // sign-ins have nothing to refresh), so authenticated responses say so.
        if (svc.caller) set.headers['x-auth-refreshed'] = 'false';
        for (const stage of after) await stage({ request, path, svc, set: set as { headers: Record<string, string | number> }, access });
      },
    }),
  });
}

/** The auth gate plugin; route families `.use()` it to get the `auth` route option. */
export type AuthGate = ReturnType<typeof authGate>;
