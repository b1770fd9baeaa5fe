import type { PaymentRequirements } from '@x402/core/types';
import { createHash } from 'node:crypto';
import { MICROS } from '../billing/money';
import { BASE_MAINNET, USDC_BASE, USDC_SOLANA } from './config';
import { invalidPayment, paymentError } from './errors';
import { loadEvmPayments } from './libraries';
import type { DecodedPayment } from './payment-payload';

/** What the checks learned: the single-use nonce, the payer when the payload names one, the amount. */
export interface CheckedPayment {
  network: string;
  chain: 'evm' | 'solana';
  amountMicros: number;
  nonce: string;
  payer: string | null;
}

/** Seconds a signed authorization must still be valid for, so settlement can land on chain. */
const SETTLE_MARGIN_SECONDS = 6;

/**
 * The checks on what the payer says it accepted, against what this service offers: network,
 * scheme, asset, recipient and amount bounds. Returns the amount in micro-USD.
 */
export function checkAccepted(
  payment: DecodedPayment,
  o: { networks: string[]; payTo: (network: string) => string | undefined; minMicros: number; maxMicros: number; name?: string },
): number {
  const accepted = payment.accepted;
  if (!o.networks.includes(accepted.network))
    throw paymentError(400, 'UNSUPPORTED_NETWORK', `Network ${accepted.network} is not accepted; use one of ${o.networks.join(', ')}`);
  if (accepted.scheme !== 'exact') throw invalidPayment(`Scheme "${accepted.scheme}" is not accepted; use "exact"`);
  const evm = accepted.network === BASE_MAINNET;
  const asset = evm ? USDC_BASE : USDC_SOLANA;
  if (evm ? accepted.asset.toLowerCase() !== asset.toLowerCase() : accepted.asset !== asset)
    throw invalidPayment(`Payment field "accepted.asset" must be USDC (${asset}) on ${accepted.network}`);
  const payTo = o.payTo(accepted.network) as string;
  if (evm ? accepted.payTo.toLowerCase() !== payTo.toLowerCase() : accepted.payTo !== payTo)
    throw paymentError(400, 'INVALID_PAYMENT_RECIPIENT', `Payments must be made to ${payTo} on ${accepted.network}`);
  if (!/^\d{1,15}$/.test(accepted.amount)) throw invalidPayment('Payment field "accepted.amount" must be an integer of USDC base units');
  const amount = Number(accepted.amount);
  const name = o.name ?? 'top-up';
  if (amount < o.minMicros) throw paymentError(400, 'AMOUNT_TOO_LOW', `The minimum ${name} is ${o.minMicros / MICROS} USD`);
  if (amount > o.maxMicros) throw paymentError(400, 'AMOUNT_TOO_HIGH', `The maximum ${name} is ${o.maxMicros / MICROS} USD`);
  return amount;
}

/** The accepted requirements must be exactly the ones this service would offer for that amount. */
export function checkMatchesOffer(accepted: PaymentRequirements, offered: PaymentRequirements): void {
  if (accepted.maxTimeoutSeconds !== offered.maxTimeoutSeconds)
    throw invalidPayment(`Payment field "accepted.maxTimeoutSeconds" must be ${offered.maxTimeoutSeconds}`);
  for (const [key, value] of Object.entries(offered.extra ?? {}))
    if (JSON.stringify(accepted.extra?.[key]) !== JSON.stringify(value))
      throw invalidPayment(`Payment field "accepted.extra.${key}" does not match the offered requirements`);
}

function field(payload: Record<string, unknown>, name: string): string {
  const value = payload[name];
  if (typeof value !== 'string' || value.length === 0 || value.length > 200)
    throw invalidPayment(`Payment field "payload.${name}" is missing or invalid`);
  return value;
}

/**
 * EIP-3009 `transferWithAuthorization` checks, all offline: the recipient and value match
 * what was accepted, the validity window is open (and long enough to settle), the nonce is
 * a bytes32, and an EOA signature recovers to `from` (contract-wallet signatures, longer
 * than 65 bytes, are left to the facilitator, which can call the chain).
 */
export async function checkEvmAuthorization(payment: DecodedPayment, nowMs: number): Promise<{ nonce: string; payer: string }> {
  const raw = payment.payload.authorization;
  if (typeof raw !== 'object' || raw === null)
    throw invalidPayment('Payment field "payload.authorization" is missing (only EIP-3009 USDC transfers are accepted)');
  const auth = raw as Record<string, unknown>;
  const from = field(auth, 'from');
  const to = field(auth, 'to');
  const value = field(auth, 'value');
  const validAfter = field(auth, 'validAfter');
  const validBefore = field(auth, 'validBefore');
  const nonce = field(auth, 'nonce');
  const signature = field(payment.payload, 'signature');
  const { getAddress, isAddress, isHex, recoverTypedDataAddress, authorizationTypes } = await loadEvmPayments();
  if (!isAddress(from) || !isAddress(to)) throw invalidPayment('Payment field "payload.authorization.from" or ".to" is not an address');
  if (to.toLowerCase() !== payment.accepted.payTo.toLowerCase())
    throw paymentError(400, 'INVALID_PAYMENT_RECIPIENT', 'The authorization pays another address than the accepted payTo');
  if (value !== payment.accepted.amount)
    throw invalidPayment('Payment field "payload.authorization.value" does not match the accepted amount');
  if (!/^\d{1,20}$/.test(validAfter) || !/^\d{1,20}$/.test(validBefore))
    throw invalidPayment('The authorization validity window is invalid');
  const now = Math.floor(nowMs / 1000);
  if (Number(validAfter) > now) throw invalidPayment('The authorization is not valid yet (validAfter is in the future)');
  if (Number(validBefore) < now + SETTLE_MARGIN_SECONDS) throw invalidPayment('The authorization has expired (validBefore has passed)');
  if (Number(validBefore) > now + payment.accepted.maxTimeoutSeconds + 60)
    throw invalidPayment('The authorization is valid for longer than maxTimeoutSeconds allows');
  if (!isHex(nonce) || nonce.length !== 66)
    throw invalidPayment('Payment field "payload.authorization.nonce" must be a bytes32 hex string');
  if (!isHex(signature)) throw invalidPayment('Payment field "payload.signature" must be hex');
  if (signature.length === 132) {
    const extra = payment.accepted.extra ?? {};
    let signer: string;
    try {
      signer = await recoverTypedDataAddress({
        domain: {
          name: String(extra.name),
          version: String(extra.version),
          chainId: 8453,
          verifyingContract: getAddress(payment.accepted.asset),
        },
        types: authorizationTypes,
        primaryType: 'TransferWithAuthorization',
        message: {
          from: getAddress(from),
          to: getAddress(to),
          value: BigInt(value),
          validAfter: BigInt(validAfter),
          validBefore: BigInt(validBefore),
          nonce,
        },
        signature,
      });
    } catch {
      throw invalidPayment('The payment signature is malformed');
    }
    if (signer.toLowerCase() !== from.toLowerCase()) throw invalidPayment('The payment signature does not match the authorization');
  }
  return { nonce: nonce.toLowerCase(), payer: getAddress(from) };
}

/**
 * A Solana `exact` payment is a partially signed transfer transaction. Its single-use
 * identity is the hash of the transaction; its instructions, amount, recipient and signature
 * are verified by the facilitator's /verify, which decodes and simulates it.
 */
export function checkSolanaTransaction(payment: DecodedPayment): { nonce: string } {
  const transaction = payment.payload.transaction;
  if (typeof transaction !== 'string' || transaction.length < 64 || transaction.length > 4096 || !/^[A-Za-z0-9+/=]+$/.test(transaction))
    throw invalidPayment('Payment field "payload.transaction" must be a base64 Solana transaction');
  return { nonce: createHash('sha256').update(Buffer.from(transaction, 'base64')).digest('hex') };
}
