import { lazyModule } from '../lifecycle/lazy-module';

/**
 * viem and @x402/evm (EIP-3009 authorization types, typed-data recovery, checksummed
 * addresses), loaded by the first top-up: a server that takes no payments never holds them.
 */
export const loadEvmPayments = lazyModule(async () => {
  const [{ getAddress, isAddress, isHex, recoverTypedDataAddress }, { authorizationTypes }] = await Promise.all([
    import('viem'),
    import('@x402/evm'),
  ]);
  return { getAddress, isAddress, isHex, recoverTypedDataAddress, authorizationTypes };
});

/** The facilitator client, the resource server and the exact schemes for Base and Solana, loaded by the first payment offer. */
export const loadFacilitator = lazyModule(async () => {
  const [{ BoundedFacilitatorClient }, { x402ResourceServer }, { ExactEvmScheme }, { ExactSvmScheme }] = await Promise.all([
    import('./facilitator-client'),
    import('@x402/core/server'),
    import('@x402/evm/exact/server'),
    import('@x402/svm/exact/server'),
  ]);
  return { BoundedFacilitatorClient, x402ResourceServer, ExactEvmScheme, ExactSvmScheme };
});

/** @x402/core's header encoders (its `http` entry loads the whole server bundle), loaded by the first settled top-up. */
export const loadHttpHeaders = lazyModule(() => import('@x402/core/http'));
