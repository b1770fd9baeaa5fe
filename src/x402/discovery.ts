import type { PaymentRequired } from '@x402/core/types';
import { allowedDomains, publicOrigin } from '../auth/wallet-config';
import { paymentRequired, type ServiceError } from '../http/errors';
import { paymentRequiredHeader, signInExtension } from './challenges';
import { BASE_MAINNET } from './config';
import { x402Of, type X402Deps } from './service';

/** The origin a challenge names: the request's own when it is one of ours (so clients bind it), else the public one. */
export function challengeOrigin(request: Request, domains: Set<string>, fallback: string): string {
  const url = new URL(request.url);
  return domains.has(url.host) ? url.origin : fallback;
}

/** The x402 service, and the origin and resource URL a challenge for `request` names. */
function challengeTarget(deps: X402Deps, request: Request, port: number | undefined) {
  const x402 = x402Of(deps);
  const origin = challengeOrigin(request, allowedDomains(deps.config, x402.wallets, port), publicOrigin(deps.config, port));
  return { x402, origin, resourceUrl: `${origin}${new URL(request.url).pathname}` };
}

/** A PaymentRequired as the 402 answer: its fields as the body, the whole object in PAYMENT-REQUIRED. */
function answer(required: PaymentRequired & Record<string, unknown>): ServiceError {
  const { error, ...rest } = required;
  return paymentRequired(error as string, rest, paymentRequiredHeader(required));
}

/** Builds the discovery 402 of a request for a payment of `amountMicros`. */
export type Discovery = (request: Request, amountMicros: number) => Promise<ServiceError>;

/**
 * The discovery 402 (API-NOTES 12, variant 2) for a caller with no credentials on a metered
 * route: how to pay for this call (x402 `accepts` of `amountMicros`, USDC on Base and
 * Solana, which the route accepts in PAYMENT-SIGNATURE), how to sign in (the
 * `sign-in-with-x` extension as @x402/extensions reads it) and the API-key alternative, also
 * base64-encoded in PAYMENT-REQUIRED. The sign-in extension is left out when sign-in is off.
 */
export function discoveryFor(deps: X402Deps, listenPort: () => number | undefined): Discovery {
  const { config } = deps;
  return async function discovery(request, amountMicros) {
    const { x402, origin, resourceUrl } = challengeTarget(deps, request, listenPort());
    const topUp = `POST ${config.basePath}/x402/top-up`;
    const signIn = x402.wallets.siwx.enabled;
    return answer({
      x402Version: 2,
      error: signIn
        ? 'Authentication required: send an API key, pay for this call with x402 (PAYMENT-SIGNATURE), or sign in with a wallet (SIGN-IN-WITH-X)'
        : 'Authentication required: send an API key, or pay for this call with x402 (PAYMENT-SIGNATURE)',
      resource: { url: resourceUrl, description: 'svc inference API: one call, paid with USDC', mimeType: 'application/json' },
      accepts: await offerNow(deps, amountMicros),
      ...(signIn ? { extensions: signInExtension(x402.wallets.siwx, origin, resourceUrl, deps.now()) } : {}),
      authOptions: {
        apiKey: {
          header: 'Authorization',
          getKey: `Bearer <API key> (create one with POST ${config.basePath}/api_keys)`,
          docs: `${origin}/docs`,
        },
        x402Wallet: { header: 'SIGN-IN-WITH-X', legacyHeader: 'X-Sign-In-With-X', topUp, docs: `${origin}/docs` },
      },
    });
  };
}

/** The requirements for `amountMicros`, built against the facilitator's kinds; without it, from the last build (Base alone at first). */
async function offerNow(deps: X402Deps, amountMicros: number) {
  const { options } = x402Of(deps);
  try {
    return await options.accepts(amountMicros);
  } catch {
    return options.acceptsNow(amountMicros);
  }
}

/**
 * The answer to a wallet read (balance, transactions) without a sign-in: a 402 with the
 * `sign-in-with-x` extension, as @x402/extensions expects it, so `wrapFetchWithSIWx` signs
 * and retries on its own. That client signs for the chain of the first `accepts` entry, so the
 * entries offered are the top-up requirements (POST /x402/top-up; the read itself is free)
 * of the chain of the wallet in the path. Without payments configured `accepts` is empty,
 * the extension's form of an authentication-only route.
 */
export async function walletReadChallenge(
  deps: X402Deps,
  request: Request,
  walletAddress: string,
  listenPort: number | undefined,
): Promise<ServiceError> {
  const { config } = deps;
  const { x402, origin, resourceUrl } = challengeTarget(deps, request, listenPort);
  const evm = walletAddress.startsWith('0x');
  const offered = x402.options.configured ? await offerNow(deps, x402.minMicros) : [];
  const accepts = offered.filter((r) => (r.network === BASE_MAINNET) === evm);
  return answer({
    x402Version: 2,
    error: 'Sign in with the wallet (SIGN-IN-WITH-X) to read its balance and transactions',
    resource: {
      url: resourceUrl,
      description: `Wallet ${walletAddress}; top up with POST ${config.basePath}/x402/top-up`,
      mimeType: 'application/json',
    },
    accepts,
    extensions: signInExtension(x402.wallets.siwx, origin, resourceUrl, deps.now()),
  });
}
