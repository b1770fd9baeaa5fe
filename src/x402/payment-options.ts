import type { FacilitatorClient, x402ResourceServer } from '@x402/core/server';
import type { PaymentRequirements } from '@x402/core/types';
import { formatMicros } from '../billing/money';
import { lazyModule } from '../lifecycle/lazy-module';
import type { Logger } from '../log';
import { baseRequirement } from './challenges';
import { BASE_MAINNET, SOLANA_MAINNET_NETWORK, type PaymentsConfig } from './config';
import { loadFacilitator } from './libraries';

/** What the service accepts as payment, and the facilitator that verifies and settles it. */
export interface PaymentOptions {
  /** False when no facilitator or no receiving address is configured. */
  readonly configured: boolean;
  /** The facilitator clients (`verify` and `settle` have their own timeouts); null when none is configured. */
  facilitator(): Promise<Facilitator | null>;
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

/** The facilitator's clients and the resource server that builds requirements against its /supported kinds. */
export interface Facilitator {
  verifier: FacilitatorClient;
  settler: FacilitatorClient;
  server: x402ResourceServer;
}

/**
 * The payment options from `wallets.payments`. The x402 libraries are loaded and the
 * facilitator is asked for its kinds on first use.
 */
export function createPaymentOptions(config: PaymentsConfig, log: Logger): PaymentOptions {
  const payTo: Record<string, string | undefined> = { [BASE_MAINNET]: config.payTo.base, [SOLANA_MAINNET_NETWORK]: config.payTo.solana };
  const networks = Object.keys(payTo).filter((n) => payTo[n]);
  const url = config.facilitatorUrl?.replace(/\/+$/, '');
  async function buildFacilitator(facilitatorUrl: string): Promise<Facilitator> {
    const x402 = await loadFacilitator();
    const client = (timeoutMs: number) =>
      new x402.BoundedFacilitatorClient({ url: facilitatorUrl, timeoutMs, token: config.facilitatorToken });
    const verifier = client(config.verifyTimeoutMs);
    const server = new x402.x402ResourceServer(verifier);
    server.register(BASE_MAINNET, new x402.ExactEvmScheme()).register(SOLANA_MAINNET_NETWORK, new x402.ExactSvmScheme());
    return { verifier, settler: client(config.settleTimeoutMs), server };
  }
  const facilitator = url ? lazyModule(() => buildFacilitator(url)) : async () => null;
  let initialized: Promise<void> | null = null;
  /** The last built requirement per network, as the template for `acceptsNow`. */
  const templates = new Map<string, PaymentRequirements>();

  function ready(server: x402ResourceServer): Promise<void> {
    // A facilitator that is down at start is asked again on the next request.
    initialized ??= server.initialize().catch((error: unknown) => {
      initialized = null;
      throw error;
    });
    return initialized;
  }

  return {
    configured: Boolean(url && networks.length > 0),
    facilitator,
    networks,
    payTo: (network) => payTo[network],
    async accepts(amountMicros) {
      const server = (await facilitator())?.server;
      if (!server) return [];
      await ready(server);
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
