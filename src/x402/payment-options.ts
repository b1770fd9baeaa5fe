import { HTTPFacilitatorClient, x402ResourceServer } from '@x402/core/server';
import type { PaymentRequirements } from '@x402/core/types';
import { ExactEvmScheme } from '@x402/evm/exact/server';
import { ExactSvmScheme } from '@x402/svm/exact/server';
import { formatMicros } from '../billing/money';
import type { Logger } from '../log';
import { baseRequirement } from './challenges';
import { BASE_MAINNET, SOLANA_MAINNET_NETWORK, type PaymentsConfig } from './config';

/** What the service accepts as payment, and the facilitator that verifies and settles it. */
export interface PaymentOptions {
  /** False when no facilitator or no receiving address is configured. */
  readonly configured: boolean;
  /** The facilitator clients: `verify` and `settle` have their own timeouts. */
  readonly verifier: HTTPFacilitatorClient | null;
  readonly settler: HTTPFacilitatorClient | null;
  /** The networks offered (those with a `payTo`). */
  readonly networks: string[];
  /** The operator's receiving address on `network`. */
  payTo(network: string): string | undefined;
  /**
   * One `exact` USDC requirement per offered network for `amountMicros`, built by the x402
   * scheme servers (`@x402/evm`, `@x402/svm`) against the facilitator's /supported kinds.
   */
  accepts(amountMicros: number): Promise<PaymentRequirements[]>;
  /** The same without waiting: from the last build, else the Base entry alone (Solana needs the facilitator's fee payer). */
  acceptsNow(amountMicros: number): PaymentRequirements[];
}

/** The payment options from `wallets.payments`; the facilitator is asked for its kinds on first use. */
export function createPaymentOptions(config: PaymentsConfig, log: Logger): PaymentOptions {
  const payTo: Record<string, string | undefined> = { [BASE_MAINNET]: config.payTo.base, [SOLANA_MAINNET_NETWORK]: config.payTo.solana };
  const networks = Object.keys(payTo).filter((n) => payTo[n]);
  const url = config.facilitatorUrl?.replace(/\/+$/, '');
  const auth = config.facilitatorToken
    ? async () => {
        const headers = { authorization: `Bearer ${config.facilitatorToken}` };
        return { verify: headers, settle: headers, supported: headers };
      }
    : undefined;
  const client = (timeoutMs: number) => (url ? new HTTPFacilitatorClient({ url, timeoutMs, createAuthHeaders: auth }) : null);
  const verifier = client(config.verifyTimeoutMs);
  const settler = client(config.settleTimeoutMs);
  const server = verifier ? new x402ResourceServer(verifier) : null;
  server?.register(BASE_MAINNET, new ExactEvmScheme()).register(SOLANA_MAINNET_NETWORK, new ExactSvmScheme());
  let initialized: Promise<void> | null = null;
  /** The last built requirement per network, as the template for `acceptsNow`. */
  const templates = new Map<string, PaymentRequirements>();

  function ready(): Promise<void> {
    // A facilitator that is down at start is asked again on the next request.
    initialized ??= (server as x402ResourceServer).initialize().catch((error: unknown) => {
      initialized = null;
      throw error;
    });
    return initialized;
  }

  return {
    configured: Boolean(server && networks.length > 0),
    verifier,
    settler,
    networks,
    payTo: (network) => payTo[network],
    async accepts(amountMicros) {
      if (!server) return [];
      await ready();
      const out: PaymentRequirements[] = [];
      for (const network of networks) {
        try {
          const built = await server.buildPaymentRequirements({
            scheme: 'exact',
            network: network as PaymentRequirements['network'],
            payTo: payTo[network] as string,
            price: `$${formatMicros(amountMicros)}`,
            maxTimeoutSeconds: config.maxTimeoutSeconds,
          });
          for (const requirement of built) {
            templates.set(network, requirement);
            out.push(requirement);
          }
        } catch (error) {
          // The facilitator does not settle this network: offer the others.
          log.warn('x402: network not offered', { network, error: String(error) });
        }
      }
      return out;
    },
    acceptsNow(amountMicros) {
      const out: PaymentRequirements[] = [];
      for (const network of networks) {
        const template = templates.get(network);
        if (template) out.push({ ...template, amount: String(amountMicros), extra: { ...template.extra } });
        else if (network === BASE_MAINNET) out.push(baseRequirement(config, amountMicros) as PaymentRequirements);
      }
      return out;
    },
  };
}
