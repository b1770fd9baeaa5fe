import { Type as T, type Static } from '@sinclair/typebox';

/** Base mainnet as a CAIP-2 network id. */
export const BASE_MAINNET = 'eip155:8453';
/** Solana mainnet as a CAIP-2 network id (the genesis-hash form x402 uses). */
export const SOLANA_MAINNET_NETWORK = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';
/** USDC's contract on Base and its mint on Solana; both have 6 decimals, the same as micro-USD. */
export const USDC_BASE = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
export const USDC_SOLANA = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
export const USDC_DECIMALS = 6;

const EvmAddress = T.String({ pattern: '^0x[0-9a-fA-F]{40}$' });
const SolanaAddress = T.String({ pattern: '^[1-9A-HJ-NP-Za-km-z]{32,44}$' });

/**
 * The `wallets.payments` config section: where x402 top-ups are paid to and settled. Without
 * `facilitatorUrl` and at least one `payTo`, POST /x402/top-up answers 503 (not configured).
 */
export const PaymentsConfigSchema = T.Object(
  {
    /** Base URL of an x402 facilitator (its /verify, /settle and /supported endpoints). */
    facilitatorUrl: T.Optional(T.String({ pattern: '^https?://' })),
    /** Optional bearer token sent to the facilitator. */
    facilitatorToken: T.Optional(T.String({ minLength: 1 })),
    /** The operator's receiving addresses; a network without one is not offered. */
    payTo: T.Object({ base: T.Optional(EvmAddress), solana: T.Optional(SolanaAddress) }, { default: {} }),
    /** Largest single top-up, USD. The smallest is `billing.minimumTopUpUsd` (5 by default). */
    maximumTopUpUsd: T.Integer({ minimum: 1, default: 10_000 }),
    /** The amount offered in the 402 when the caller asks for none, USD. */
    suggestedTopUpUsd: T.Integer({ minimum: 1, default: 10 }),
    /** How long a signed payment stays valid (the requirements' maxTimeoutSeconds). */
    maxTimeoutSeconds: T.Integer({ minimum: 30, maximum: 3600, default: 300 }),
    /** Facilitator timeouts; a settlement without an answer in time is a 504 and stays pending. */
    verifyTimeoutMs: T.Integer({ minimum: 100, default: 10_000 }),
    settleTimeoutMs: T.Integer({ minimum: 100, default: 60_000 }),
    /** Top-up requests allowed per client IP per minute. */
    topUpsPerMinutePerIp: T.Integer({ minimum: 1, default: 10 }),
    /** Believe the last X-Forwarded-For hop for the client IP (behind a trusted proxy). */
    trustForwardedFor: T.Boolean({ default: false }),
    /** Wallet requests served at once per wallet (429 X402_CONCURRENCY_LIMIT above). */
    concurrencyPerWallet: T.Integer({ minimum: 1, default: 5 }),
    /**
     * Smallest x402 payment a metered route asks for and accepts for one call, USD (a 402 asks
     * for the larger of this and the call's reservation). What the call does not spend stays
     * on the payer's wallet balance, so at least this much lets a signed-in wallet make its
     * next calls from the balance; keep it at or under 1, the default cap of x402 clients.
     */
    minimumPaymentUsd: T.String({ pattern: '^\\d+(\\.\\d{1,6})?$', default: '0.25' }),
    /** Smallest USDC balance, USD, for a wallet to be admitted to an inference call. */
    minimumBalanceUsd: T.String({ pattern: '^\\d+(\\.\\d{1,6})?$', default: '0.10' }),
    /** Daily USD credit per whole staked token (spec 5.2: 1 token gives 1 USD a day); 0 turns it off. */
    stakingCreditUsdPerToken: T.String({ pattern: '^\\d+(\\.\\d{1,6})?$', default: '0' }),
    /** Decimals of the staking token, to turn its base-unit balance into whole tokens. */
    stakingTokenDecimals: T.Integer({ minimum: 0, maximum: 36, default: 18 }),
  },
  { default: {} },
);

/** The validated `wallets.payments` section. */
export type PaymentsConfig = Static<typeof PaymentsConfigSchema>;
