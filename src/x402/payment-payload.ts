import { Type as T, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { PaymentPayload } from '@x402/core/types';
import { invalidPayment } from './errors';

/** The payment header names, newest first: x402 v2's PAYMENT-SIGNATURE and the two legacy names. */
const PAYMENT_HEADERS = ['payment-signature', 'x-402-payment', 'x-payment'];

/** The payment header value a request carries, or null. */
export function paymentHeader(request: Request): string | null {
  for (const name of PAYMENT_HEADERS) {
    const value = request.headers.get(name);
    if (value !== null) return value;
  }
  return null;
}

const Requirements = T.Object({
  scheme: T.String({ maxLength: 64 }),
  network: T.String({ maxLength: 128 }),
  asset: T.String({ maxLength: 128 }),
  amount: T.String({ maxLength: 40 }),
  payTo: T.String({ maxLength: 128 }),
  maxTimeoutSeconds: T.Number(),
  extra: T.Optional(T.Record(T.String(), T.Unknown())),
});

const PayloadSchema = T.Object({
  x402Version: T.Literal(2),
  accepted: Requirements,
  payload: T.Record(T.String(), T.Unknown()),
  resource: T.Optional(T.Unknown()),
  extensions: T.Optional(T.Record(T.String(), T.Unknown())),
});

/** A decoded x402 v2 payment payload (typed like @x402/core's PaymentPayload). */
export type DecodedPayment = Static<typeof PayloadSchema> & PaymentPayload;

/**
 * Decodes the base64 JSON header into an x402 v2 PaymentPayload; 400 X402_INVALID_PAYMENT
 * naming the field when it is not one. Version 1 payloads are refused with a pointer to v2.
 */
export function decodePayment(header: string): DecodedPayment {
  // A real payload is 1-3 KB; anything far larger is refused before decoding.
  if (header.length > 16_384) throw invalidPayment('The payment header is larger than 16 KB');
  let value: unknown;
  try {
    if (!/^[A-Za-z0-9+/=_-]+$/.test(header.trim())) throw new Error('not base64');
    value = JSON.parse(Buffer.from(header.trim(), 'base64').toString('utf8'));
  } catch {
    throw invalidPayment('The payment header is not base64-encoded JSON');
  }
  if (typeof value === 'object' && value !== null && (value as { x402Version?: unknown }).x402Version === 1)
    throw invalidPayment('x402Version 1 payloads are not accepted: sign one of the version 2 requirements');
  if (!Value.Check(PayloadSchema, value)) {
    const first = Value.Errors(PayloadSchema, value).First();
    const field = first?.path.replace(/^\//, '').replaceAll('/', '.') || 'payload';
    throw invalidPayment(`Payment field "${field}" is missing or invalid`);
  }
  return value as DecodedPayment;
}
