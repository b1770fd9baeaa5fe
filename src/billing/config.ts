import { Type as T, type Static } from '@sinclair/typebox';
import { parseConfigSection, type Config } from '../config';

const CurrencySchema = T.Union([T.Literal('USD'), T.Literal('DIEM'), T.Literal('VCU'), T.Literal('BUNDLED_CREDITS'), T.Literal('USDC')]);

/** The `billing` config section: payment order, reservation lifetime, ledger batching. */
export const BillingConfigSchema = T.Object(
  {
    /**
     * Currencies tried in order for a request; the first that covers the whole reservation pays.
     * An account's API keys spend every balance the account holds, a wallet's x402 USDC last
     * (a web3 key of a wallet that topped up spends that USDC).
     */
    paymentOrder: T.Object(
      {
        apiKey: T.Array(CurrencySchema, { minItems: 1, default: ['DIEM', 'BUNDLED_CREDITS', 'USD', 'USDC'] }),
        wallet: T.Array(CurrencySchema, { minItems: 1, default: ['USDC'] }),
      },
      { default: {} },
    ),
    /** How long a reservation holds balance when its request never settles (crash); the hold sweep frees it then. */
    holdTtlMs: T.Integer({ minimum: 1000, default: 15 * 60_000 }),
    /** Ledger writer period; charges reach the database this often. */
    flushIntervalMs: T.Integer({ minimum: 10, default: 300 }),
    /** Most queued settlements written in one database transaction. */
    flushBatchSize: T.Integer({ minimum: 1, maximum: 10_000, default: 500 }),
    /**
     * Embedded database only (PGlite runs on svc's own thread): about how long one ledger
     * statement holds the thread. A batch goes in as COPY slices of this length in one
     * transaction, requests served between them; while requests keep the loop busy a slice
     * may take half the loop's last turn, up to 10x this, so the ledger keeps up.
     */
    flushSliceMs: T.Number({ exclusiveMinimum: 0, default: 2 }),
    /**
     * How long a settled request id is remembered for idempotent re-settlement (at least; the
     * memory store keeps it up to twice as long). A ticket memoises its own outcome, so this
     * only guards a late second settle or release, such as a settlement script retried after
     * a connection error, which comes within seconds. Every request adds an id: 10 minutes of
     * them grew a busy process by ~45 MB over the bench's 5-minute soak.
     */
    settledTtlMs: T.Integer({ minimum: 60_000, default: 60_000 }),
    /**
     * A directory for the local journal of settlements not yet in the database (one directory
     * per instance). Each charge is appended there before the client sees its cost, so a crash
     * of the process loses none; unset, they wait in memory only. docs/operations.md "Faults and scaling out".
     */
    journalDir: T.Optional(T.String({ minLength: 1 })),
    /**
     * Redis only: how long settlements wait to go to Redis together, one script per account
     * (0: each request's settlement goes alone, and the answer waits for it). The answer does
     * not wait: its charge is journaled and known, and its hold covers it until it lands.
     */
    settleBatchMs: T.Number({ minimum: 0, maximum: 1000, default: 5 }),
    /** Redis only: most settlements of one account in one script (its group goes at once then). */
    settleBatchMax: T.Integer({ minimum: 1, maximum: 1000, default: 64 }),
    /** How often expired holds (of instances that died mid-request) are swept on Redis. */
    holdSweepIntervalMs: T.Integer({ minimum: 100, default: 30_000 }),
    /** Smallest wallet top-up, USD (402 bodies for wallet callers). */
    minimumTopUpUsd: T.Number({ minimum: 0, default: 5 }),
  },
  { default: {} },
);

/** The validated `billing` section. */
export type BillingConfig = Static<typeof BillingConfigSchema>;

/** Validates `config.billing` with defaults; throws ConfigError naming the bad field. */
export function parseBillingConfig(config: Pick<Config, 'billing'>): BillingConfig {
  return parseConfigSection(BillingConfigSchema, config.billing, 'billing');
}
