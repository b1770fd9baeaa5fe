import * as ed from '@noble/ed25519';
import bs58 from 'bs58';
import { signInError } from './errors';
import type { SignInFields } from './checks';
import { solanaCaip } from './payload';

const HEADER = /^(\S+) wants you to sign in with your Solana account:$/;
const FIELD_NAMES: Record<string, keyof SignInFields | 'version' | 'ignored'> = {
  URI: 'uri',
  Version: 'version',
  'Chain ID': 'chain',
  Nonce: 'nonce',
  'Issued At': 'issuedAt',
  'Expiration Time': 'expirationTime',
  'Not Before': 'notBefore',
  'Request ID': 'ignored',
  Resources: 'ignored',
};

/**
 * Parses the Solana sign-in message (the SIWS text: "<domain> wants you to sign in with your
 * Solana account:\n<address>\n\n<statement>\n\nURI: ...\nVersion: 1\nChain ID: ...\nNonce: ...
 * \nIssued At: ...\nExpiration Time: ..."). The statement is optional; fields are `Key: value`.
 */
export function parseSolanaMessage(message: string): SignInFields {
  const lines = message.split('\n');
  const domain = HEADER.exec(lines[0] ?? '')?.[1];
  const address = lines[1]?.trim();
  if (!domain || !address) throw signInError('X402_SIGN_IN_INVALID_MESSAGE', 'the message is not a Solana sign-in message');
  const values: Record<string, string> = {};
  for (const line of lines.slice(2)) {
    const match = /^([A-Za-z ]+): (.*)$/.exec(line);
    const name = match && FIELD_NAMES[match[1] as string];
    if (!match || !name) continue;
    if (name in values) throw signInError('X402_SIGN_IN_INVALID_MESSAGE', `duplicate field "${match[1]}"`);
    values[name] = (match[2] as string).trim();
  }
  if (!values.uri || !values.chain || values.version !== '1')
    throw signInError('X402_SIGN_IN_INVALID_MESSAGE', 'the message lacks URI, Version 1 or Chain ID');
  return {
    domain,
    address,
    uri: values.uri,
    chain: solanaCaip(values.chain),
    nonce: values.nonce,
    issuedAt: values.issuedAt,
    expirationTime: values.expirationTime,
    notBefore: values.notBefore,
  };
}

/** The 32-byte public key of a base58 Solana address, or null when it is not one. */
export function solanaPublicKey(address: string): Uint8Array | null {
  try {
    const bytes = bs58.decode(address);
    return bytes.length === 32 ? bytes : null;
  } catch {
    return null;
  }
}

/** A 64-byte Ed25519 signature from base58 or base64 text, or null. */
function signatureBytes(signature: string): Uint8Array | null {
  try {
    const bytes = bs58.decode(signature);
    if (bytes.length === 64) return bytes;
  } catch {
    // not base58; try base64 below
  }
  const bytes = Buffer.from(signature, 'base64');
  return bytes.length === 64 ? new Uint8Array(bytes) : null;
}

/** True when `signature` is the Ed25519 signature of the UTF-8 `message` by the wallet `address`. */
export async function verifySolanaSignature(message: string, signature: string, address: string): Promise<boolean> {
  const publicKey = solanaPublicKey(address);
  const sig = signatureBytes(signature);
  if (!publicKey || !sig) return false;
  try {
    return await ed.verifyAsync(sig, new TextEncoder().encode(message), publicKey, { zip215: false });
  } catch {
    return false;
  }
}
