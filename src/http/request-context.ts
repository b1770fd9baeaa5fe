import type { ApiKeyRecord } from '../auth/api-keys';

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
export interface RequestContext {
  /** The CF-RAY value: unique per request, in every response and log line. */
  requestId: string;
  /** performance.now() when the request arrived. */
  startedAt: number;
  /** Set by the auth gate; null on public routes. */
  caller: Caller | null;
}
