import { ServiceError } from '../../http/errors';

/** The reference's sign-in error codes (API-NOTES §10), sent as `code` beside `error`. */
export type SignInErrorCode =
  | 'X402_SIGN_IN_INVALID_PAYLOAD'
  | 'X402_SIGN_IN_PARSE_ERROR'
  | 'X402_SIGN_IN_INVALID_MESSAGE'
  | 'X402_SIGN_IN_ADDRESS_MISMATCH'
  | 'X402_SIGN_IN_INVALID_CHAIN_ID'
  | 'X402_SIGN_IN_CHAIN_MISMATCH'
  | 'X402_SIGN_IN_UNSUPPORTED_CHAIN'
  | 'X402_SIGN_IN_MISSING_NONCE'
  | 'X402_SIGN_IN_DOMAIN_MISMATCH'
  | 'X402_SIGN_IN_TIMESTAMP_MISMATCH'
  | 'X402_SIGN_IN_EXPIRED'
  | 'X402_SIGN_IN_FUTURE_TIMESTAMP'
  | 'X402_SIGN_IN_NOT_BEFORE'
  | 'X402_SIGN_IN_INVALID_SIGNATURE'
  | 'X402_SIGN_IN_INVALID_WALLET'
  | 'X402_SIGN_IN_NONCE_REUSED';

/** A refused sign-in: 401 `{ error, code }`. The message never echoes the signature. */
export function signInError(code: SignInErrorCode, message: string): ServiceError {
  return new ServiceError(401, { error: `Invalid sign-in: ${message}`, code });
}
