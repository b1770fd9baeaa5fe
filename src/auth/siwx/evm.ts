import { lazyModule } from '../../lifecycle/lazy-module';
import { signInError } from './errors';
import type { SignInFields } from './checks';

/**
 * viem (EIP-191 recovery, address checksums; x402's EVM scheme needs it anyway) and the
 * Sign-In with Ethereum library's ABNF parser (EIP-4361), loaded by the first EVM wallet request.
 */
const loadEvm = lazyModule(async () => {
  const [{ getAddress, isAddress, recoverMessageAddress }, { SiweMessage }] = await Promise.all([
    import('viem'),
    import('@signinwithethereum/siwe'),
  ]);
  return { getAddress, isAddress, recoverMessageAddress, SiweMessage };
});

/** True when `address` is a 0x EVM address (a mixed-case one must carry a valid EIP-55 checksum). */
export async function isEvmAddress(address: string): Promise<boolean> {
  return (await loadEvm()).isAddress(address);
}

/** Parses an EIP-4361 message with the SIWE library's ABNF parser; 401 INVALID_MESSAGE when it is not one. */
export async function parseEvmMessage(message: string): Promise<SignInFields> {
  const { SiweMessage } = await loadEvm();
  let siwe: InstanceType<typeof SiweMessage>;
  try {
    siwe = new SiweMessage(message);
  } catch {
    throw signInError('X402_SIGN_IN_INVALID_MESSAGE', 'the message is not an EIP-4361 sign-in message');
  }
  if (siwe.version !== '1') throw signInError('X402_SIGN_IN_INVALID_MESSAGE', 'unsupported message version');
  return {
    domain: siwe.domain,
    address: siwe.address,
    uri: siwe.uri,
    chain: `eip155:${siwe.chainId}`,
    nonce: siwe.nonce,
    issuedAt: siwe.issuedAt,
    expirationTime: siwe.expirationTime,
    notBefore: siwe.notBefore,
  };
}

/** True when `signature` (hex) is the EIP-191 signature of exactly `message` by `address`. Offline. */
export async function verifyEvmSignature(message: string, signature: string, address: string): Promise<boolean> {
  const { getAddress, recoverMessageAddress } = await loadEvm();
  try {
    return (await recoverMessageAddress({ message, signature: signature as `0x${string}` })) === getAddress(address);
  } catch {
    return false;
  }
}
