import { lazyModule } from '../../lifecycle/lazy-module';
import { signInError } from './errors';

/** @x402/extensions' sign-in helpers (with the wallet libraries behind them), loaded by the first sign-in in that form. */
const loadSignInWithX = lazyModule(() => import('@x402/extensions/sign-in-with-x'));

/** The reference's header fields, as the rest of the sign-in checks read them. */
export interface ReferenceSignIn {
  address: string;
  message: string;
  signature: string;
  timestamp: number;
  chainId: string;
  type?: string;
}

/** True when a decoded header is the x402 project's form: message fields spread out, no `message` text. */
export function isStandardSignIn(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !('message' in value) && 'domain' in value && 'nonce' in value;
}

/**
 * Turns the SIGN-IN-WITH-X payload that `@x402/extensions` builds (`{domain, address, uri,
 * version, chainId, type, nonce, issuedAt, ..., signature}`) into the reference form. The
 * signed text is rebuilt with the same package's `createSIWxMessage`, so the signature is
 * checked against exactly what the wallet signed, and every later check (domain, URI, chain,
 * issued-at window, single-use nonce) runs unchanged on it.
 */
export async function fromStandardSignIn(value: Record<string, unknown>): Promise<ReferenceSignIn> {
  const { createSIWxMessage, SIWxPayloadSchema } = await loadSignInWithX();
  const parsed = SIWxPayloadSchema.safeParse(value);
  if (!parsed.success) {
    const field = parsed.error.issues[0]?.path.join('.') || 'payload';
    throw signInError('X402_SIGN_IN_INVALID_PAYLOAD', `field "${field}" is missing or invalid`);
  }
  const payload = parsed.data;
  const issuedAt = Date.parse(payload.issuedAt);
  if (Number.isNaN(issuedAt)) throw signInError('X402_SIGN_IN_INVALID_MESSAGE', 'issuedAt is not an ISO 8601 time');
  let message: string;
  try {
    message = createSIWxMessage(payload, payload.address);
  } catch {
    throw signInError('X402_SIGN_IN_INVALID_CHAIN_ID', 'chainId must be an eip155: or solana: CAIP-2 id');
  }
  return {
    address: payload.address,
    message,
    signature: payload.signature,
    // The standard form has no separate client timestamp: the message's own issuedAt stands for it.
    timestamp: issuedAt,
    chainId: payload.chainId,
    type: payload.type === 'ed25519' ? 'ed25519' : 'eip191',
  };
}
