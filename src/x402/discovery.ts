import type { PaymentRequired } from '@x402/core/types';
import { allowedDomains, publicOrigin } from '../auth/wallet-config';
import { paymentRequired, type ServiceError } from '../http/errors';
import { paymentRequiredHeader, signInExtension } from './challenges';
import { x402Of, type X402Deps } from './service';

/** The origin a challenge names: the request's own when it is one of ours (so clients bind it), else the public one. */
export function challengeOrigin(request: Request, domains: Set<string>, fallback: string): string {
  const url = new URL(request.url);
  return domains.has(url.host) ? url.origin : fallback;
}

/**
 * The discovery 402 (API-NOTES 12, variant 2) for a caller with no credentials on an
 * inference route: how to pay (x402 `accepts`, USDC on Base and Solana), how to sign in
 * (the `sign-in-with-x` extension as @x402/extensions reads it) and the API-key alternative,
 * also base64-encoded in PAYMENT-REQUIRED. The auth gate asks for it on INFERENCE routes
 * (the metered ones); null (the gate keeps its 401) when wallet sign-in or payments are off.
 */
export function discoveryFor(deps: X402Deps, listenPort: () => number | undefined) {
  const { config } = deps;
  return function discovery(request: Request): ServiceError | null {
    const x402 = x402Of(deps);
    if (!x402.wallets.siwx.enabled || !x402.options.configured) return null;
    const port = listenPort();
    const origin = challengeOrigin(request, allowedDomains(config, x402.wallets, port), publicOrigin(config, port));
    const resourceUrl = `${origin}${new URL(request.url).pathname}`;
    const topUp = `POST ${config.basePath}/x402/top-up`;
    const required: PaymentRequired & Record<string, unknown> = {
      x402Version: 2,
      error: 'Authentication required: send an API key, or sign in with a wallet (SIGN-IN-WITH-X) and pay with x402',
      resource: { url: resourceUrl, description: 'svc inference API', mimeType: 'application/json' },
      accepts: x402.options.acceptsNow(x402.minMicros),
      extensions: signInExtension(x402.wallets.siwx, origin, resourceUrl, deps.now()),
      authOptions: {
        apiKey: {
          header: 'Authorization',
          getKey: `Bearer <API key> (create one with POST ${config.basePath}/api_keys)`,
          docs: `${origin}/docs`,
        },
        x402Wallet: { header: 'SIGN-IN-WITH-X', legacyHeader: 'X-Sign-In-With-X', topUp, docs: `${origin}/docs` },
      },
    };
    const { error, ...rest } = required;
    return paymentRequired(error as string, rest, paymentRequiredHeader(required));
  };
}
