import type { ApiKeyRecord } from '../auth/api-keys';
import type { StageMarks } from '../request-log/stages';
import type { TraceState } from '../tracing/state';

/** Who is calling: the account, and the key or wallet that proved it. */
export interface Caller {
  accountId: string;
  tier: 'standard' | 'partner';
  via: 'api_key' | 'wallet';
  apiKey: ApiKeyRecord | null;
  wallet: { address: string; chain: 'evm' | 'solana' } | null;
}

/**
 * The typed per-request state every gate reads and writes (instead of ad-hoc context
 * properties). Created by the request-id gate, filled in by later stages.
 */
export interface RequestContext extends StageMarks {
  /** The CF-RAY value: unique per request, in every response and log line. */
  requestId: string;
  /** performance.now() when the request arrived. */
  startedAt: number;
  /** Set by the auth gate; null on public routes. */
  caller: Caller | null;
  /**
   * An x402 payment offered for this call (src/gates/x402-payment.ts): set on metered routes
   * when payments are configured and the caller has no API key; the meter's wallet admission
   * settles it once the call's reservation is known.
   */
  payment?: CallPayment;
  /** What the meter settled for this call (the request log's tokens and cost); absent when nothing settled. */
  settled?: SettledNote;
  /** Set when the operator captures this caller's bodies (src/gates/body-capture.ts): the parsed request body, the handler's answer and the cap. */
  capture?: { request: unknown; response?: unknown; maxBytes: number };
  /** The request's trace ids when tracing is on (src/tracing); null when it is off. */
  trace?: TraceState | null;
}

/** A settlement as the request log records it: tokens and the charge in micro-units of its currency. */
export interface SettledNote {
  promptTokens: number;
  completionTokens: number;
  costMicros: number;
  currency: 'USD' | 'DIEM';
}

/** A pay-per-call offer as the meter sees it (built by the x402 payment gate). */
export interface CallPayment {
  /** The signed payment's amount in micro-USD; 0 when the caller sent none. */
  readonly amountMicros: number;
  /** True when the caller also signed in (SIGN-IN-WITH-X): its balance is used before the payment. */
  readonly signedIn: boolean;
  /** The 402 that asks for a payment of `amountMicros` for this call (nothing is settled). */
  required(amountMicros: number): Promise<Error>;
  /** Settles and credits the payment to the payer's wallet once (the answer then carries PAYMENT-RESPONSE). */
  settle(): Promise<unknown>;
}
