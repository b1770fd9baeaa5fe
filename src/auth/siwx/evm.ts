import { getAddress, verifyMessage } from 'ethers';
import { SiweMessage } from 'siwe';
import { signInError } from './errors';
import type { SignInFields } from './checks';

/** Parses an EIP-4361 message with `siwe`'s ABNF parser; 401 INVALID_MESSAGE when it is not one. */
export function parseEvmMessage(message: string): SignInFields {
  let siwe: SiweMessage;
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
export function verifyEvmSignature(message: string, signature: string, address: string): boolean {
  try {
    return verifyMessage(message, signature) === getAddress(address);
  } catch {
    return false;
  }
}
