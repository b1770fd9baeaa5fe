import { ServiceError } from '../http/errors';

/** The top-up error codes of the reference (API-NOTES 10), sent as `{ error: CODE, message }`. */
export type PaymentErrorCode =
  | 'X402_INVALID_PAYMENT'
  | 'X402_PAYMENT_REPLAYED'
  | 'AMOUNT_TOO_LOW'
  | 'AMOUNT_TOO_HIGH'
  | 'INVALID_PAYMENT_RECIPIENT'
  | 'UNSUPPORTED_NETWORK'
  | 'PAYMENT_IN_PROGRESS'
  | 'SETTLEMENT_FAILED'
  | 'SETTLEMENT_TIMEOUT'
  | 'FACILITATOR_UNAVAILABLE'
  | 'X402_NOT_CONFIGURED'
  | 'X402_WALLET_MISMATCH'
  | 'X402_CONCURRENCY_LIMIT';

/** A refused payment or wallet request: `{ error: CODE, message }` with its status. */
export function paymentError(status: number, code: PaymentErrorCode, message: string, headers: Record<string, string> = {}): ServiceError {
  return new ServiceError(status, { error: code, message }, headers);
}

/** 400 X402_INVALID_PAYMENT naming what is wrong with the payment. */
export const invalidPayment = (message: string): ServiceError => paymentError(400, 'X402_INVALID_PAYMENT', message);
