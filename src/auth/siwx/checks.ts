import type { WalletsConfig } from '../wallet-config';
import { signInError } from './errors';

/** The parts of a sign-in message (EIP-4361 or its Solana twin) that the checks read. */
export interface SignInFields {
  domain: string;
  address: string;
  uri: string;
  /** The chain as written in the message, already normalized to CAIP-2. */
  chain: string;
  nonce?: string;
  issuedAt?: string;
  expirationTime?: string;
  notBefore?: string;
}

function parseTime(value: string, what: string): number {
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw signInError('X402_SIGN_IN_INVALID_MESSAGE', `${what} is not an ISO 8601 time`);
  return ms;
}

/** The URI's authority, or null when it is not an absolute URL. */
function uriHost(uri: string): string | null {
  try {
    return new URL(uri).host;
  } catch {
    return null;
  }
}

/**
 * The message checks shared by EVM and Solana: the domain and URI name this service, a
 * nonce is present, and the time window holds (issuedAt at most maxAge old and maxFuture
 * ahead, not expired, not before notBefore, payload timestamp close to issuedAt).
 */
export function checkSignInFields(
  fields: SignInFields,
  opts: { timestampMs: number; nowMs: number; domains: Set<string>; siwx: WalletsConfig['siwx'] },
) {
  const { siwx, nowMs } = opts;
  if (!opts.domains.has(fields.domain)) throw signInError('X402_SIGN_IN_DOMAIN_MISMATCH', `domain "${fields.domain}" is not this service`);
  const host = uriHost(fields.uri);
  if (host === null || !opts.domains.has(host)) throw signInError('X402_SIGN_IN_DOMAIN_MISMATCH', 'the URI does not point at this service');
  if (!fields.nonce) throw signInError('X402_SIGN_IN_MISSING_NONCE', 'the message has no nonce');
  if (!fields.issuedAt) throw signInError('X402_SIGN_IN_INVALID_MESSAGE', 'the message has no Issued At');
  const issuedAt = parseTime(fields.issuedAt, 'Issued At');
  if (issuedAt > nowMs + siwx.maxFutureSeconds * 1000) throw signInError('X402_SIGN_IN_FUTURE_TIMESTAMP', 'Issued At is in the future');
  if (nowMs - issuedAt > siwx.maxAgeSeconds * 1000)
    throw signInError('X402_SIGN_IN_EXPIRED', `the message is older than ${siwx.maxAgeSeconds} seconds`);
  if (fields.expirationTime && parseTime(fields.expirationTime, 'Expiration Time') <= nowMs)
    throw signInError('X402_SIGN_IN_EXPIRED', 'the message has expired');
  if (fields.notBefore && parseTime(fields.notBefore, 'Not Before') > nowMs)
    throw signInError('X402_SIGN_IN_NOT_BEFORE', 'the message is not valid yet');
  if (Math.abs(opts.timestampMs - issuedAt) > siwx.timestampSkewSeconds * 1000)
    throw signInError('X402_SIGN_IN_TIMESTAMP_MISMATCH', 'timestamp does not match Issued At');
}
