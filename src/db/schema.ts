import {
  bigint,
  bigserial,
  boolean,
  date,
  index,
  integer,
  json,
  jsonb,
  numeric,
  pgTable,
  pgView,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';

// Money columns are bigint micro-units (1 USD = 1,000,000) read as JS numbers: 2^53 micro-USD
// is about 9 billion dollars, far beyond any balance here, and numbers keep the hot path cheap.
const micros = (name: string) => bigint(name, { mode: 'number' });
/** A currency column: the currencies a balance or ledger line is kept in. */
const currency = () => text('currency', { enum: ['USD', 'DIEM', 'VCU', 'BUNDLED_CREDITS', 'USDC'] });
/** A ledger line's kind: money out (CHARGE), money in (CREDIT, TOP_UP), or a charge given back (REFUND). */
const ledgerKind = () => text('kind', { enum: ['CHARGE', 'CREDIT', 'TOP_UP', 'REFUND'] });
/** Whose request a ledger row belongs to. */
const requestColumns = () => ({
  accountId: uuid('account_id').notNull(),
  apiKeyId: uuid('api_key_id'),
  requestId: text('request_id').notNull(),
});
/** The usage an inference line carries (null on credits and on calls without a model). */
const usageColumns = () => ({
  promptTokens: integer('prompt_tokens'),
  completionTokens: integer('completion_tokens'),
  executionMs: integer('execution_ms'),
});
/** The exact settlement time of a ledger row. */
const ledgerTime = () => timestamp('created_at', { withTimezone: true, precision: 6 }).notNull();

/** An account: a user (API keys) or a wallet (SIGN-IN-WITH-X). Tier selects the rate-limit table. */
export const accounts = pgTable(
  'accounts',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    kind: text('kind', { enum: ['user', 'wallet'] })
      .notNull()
      .default('user'),
    tier: text('tier', { enum: ['standard', 'partner'] })
      .notNull()
      .default('standard'),
    /** The operator's account (the bootstrap account): its ADMIN keys may manage other accounts. */
    operator: boolean('operator').notNull().default(false),
    /**
     * A scratch account (POST /admin/accounts): made to try a deployment out, deleted with
     * everything it holds (keys, ledger, balances) by DELETE /admin/accounts/{accountId}.
     * Other accounts are never deleted and their ledger stays append-only.
     */
    scratch: boolean('scratch').notNull().default(false),
    /** Lower-cased EVM address or base58 Solana address for wallet accounts. */
    walletAddress: text('wallet_address'),
    walletChain: text('wallet_chain', { enum: ['evm', 'solana'] }),
    displayName: text('display_name'),
    /** Per-account rate-limit overrides set by an ADMIN; shape owned by src/limits. */
    rateLimitOverrides: jsonb('rate_limit_overrides'),
    /** Guardrails the operator attached to the account (PUT /admin/accounts/{id}/guardrails): every request of its keys runs them. */
    guardrails: text('guardrails')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('accounts_wallet_uq').on(t.walletAddress)],
);

/** Balance of one account in one currency (USD, DIEM, VCU, BUNDLED_CREDITS, USDC). */
export const balances = pgTable(
  'balances',
  {
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    currency: currency().notNull(),
    amountMicros: micros('amount_micros').notNull().default(0),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.currency] })],
);

/** An API key. Only the SHA-256 of the secret is stored; last6 is shown to help users tell keys apart. */
export const apiKeys = pgTable(
  'api_keys',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    type: text('type', { enum: ['ADMIN', 'INFERENCE'] }).notNull(),
    description: text('description').notNull().default(''),
    secretHash: text('secret_hash').notNull(),
    last6: text('last6').notNull(),
    limitUsdMicros: micros('limit_usd_micros'),
    limitDiemMicros: micros('limit_diem_micros'),
    limitVcuMicros: micros('limit_vcu_micros'),
    limitPeriod: text('limit_period', { enum: ['EPOCH', 'MONTH', 'LIFETIME'] })
      .notNull()
      .default('EPOCH'),
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
    /** Guardrails the operator attached to the key (PUT /admin/keys/{id}/guardrails): every request with it runs them. */
    guardrails: text('guardrails')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
  },
  (t) => [uniqueIndex('api_keys_hash_uq').on(t.secretHash), index('api_keys_account_idx').on(t.accountId)],
);

/**
 * The billing ledger's credits, top-ups and refunds, one row per line item, and the charges
 * written before ledger_charges existed. Idempotent by (request_id, kind, currency, sku), so
 * a retried credit cannot count twice. Sums read it with ledger_charges through `ledgerAmounts`.
 */
export const ledgerEntries = pgTable(
  'ledger_entries',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    // No foreign key to accounts: the ledger writer inserts thousands of rows a second, and
    // the referential trigger per row cost ~40 % of each insert (110 -> 66 us per row on
    // PGlite, measured). Every row comes from a settlement of an authenticated account, and
    // only scratch accounts are ever deleted, with their rows (src/auth/scratch-accounts.ts).
    ...requestColumns(),
    kind: ledgerKind().notNull(),
    currency: currency().notNull(),
    sku: text('sku').notNull(),
    modelId: text('model_id'),
    /** Units consumed, as an exact decimal string (tokens, images, seconds). */
    units: text('units').notNull().default('0'),
    /** Price per unit in USD, exact decimal string. */
    pricePerUnitUsd: text('price_per_unit_usd').notNull().default('0'),
    /** Signed: charges are negative, credits positive. */
    amountMicros: micros('amount_micros').notNull(),
    notes: text('notes'),
    ...usageColumns(),
    createdAt: ledgerTime().defaultNow(),
  },
  (t) => [
    uniqueIndex('ledger_request_uq').on(t.requestId, t.kind, t.currency, t.sku),
    // Key usage sums filter the account's rows by key through this index too. A separate
    // (api_key_id, created_at) index made every ledger insert ~35 % dearer (measured on PGlite,
    // where inserts run on svc's own thread) for queries off the request path.
    index('ledger_account_time_idx').on(t.accountId, t.createdAt, t.id),
  ],
);

/** One line item of a charge (spec 2.4's per-SKU entry), as `ledger_charges.lines` holds it. */
export interface ChargeLine {
  sku: string;
  /** Exact decimal string. */
  units: string;
  /** Exact decimal string, USD per unit. */
  pricePerUnitUsd: string;
  /** Signed micro-units in the charge's currency (charges < 0). */
  amount: number;
}

/**
 * The settlement of a request: ONE row with its line items, however many SKUs it bills. On
 * the embedded database every ledger row is written on svc's own thread, and a chat request's
 * two line items as two `ledger_entries` rows cost ~28 µs against ~14 µs as one row here
 * (measured, PGlite, COPY): the heap tuple and the three index entries are paid per row.
 * The request id is the key: one charge per request, so a replayed settlement cannot charge
 * twice. `id` orders rows and names one in either table (it comes from ledger_entries'
 * sequence), but has no index of its own: nothing looks a charge up by id, and one index
 * fewer is ~2.5 µs less per row.
 */
export const ledgerCharges = pgTable(
  'ledger_charges',
  {
    requestId: text('request_id').primaryKey(),
    id: bigint('id', { mode: 'number' })
      .notNull()
      .default(sql`nextval('ledger_entries_id_seq')`),
    accountId: uuid('account_id').notNull(),
    apiKeyId: uuid('api_key_id'),
    currency: currency().notNull(),
    modelId: text('model_id'),
    lines: json('lines').$type<ChargeLine[]>().notNull(),
    /** The sum of the lines' amounts. */
    amountMicros: micros('amount_micros').notNull(),
    /** What the plugins noted about the request (`guardrails: pii=redact; cache: HIT`), null when none did. */
    notes: text('notes'),
    ...usageColumns(),
    createdAt: ledgerTime().defaultNow(),
  },
  (t) => [index('ledger_charges_account_time_idx').on(t.accountId, t.createdAt, t.id)],
);

/**
 * Daily usage sums per (account, UTC day, model, SKU, API key, currency), appended by triggers
 * on both ledger tables (migration 0009: each inserted or deleted statement's rows, grouped, in
 * the same transaction), so GET /billing/usage-analytics sums a few thousand rows instead of
 * every ledger line of 90 days (1,000,000 charges: 51 s expanded on Postgres, measured). A
 * group has several rows until the analytics route compacts its closed days into one: appends
 * keep the ledger write cheap (an upsert per slice re-updated the same rows: 3x the CPU of a
 * sliced embedded batch, measured). `model_key` is the model id, or the first SKU of a call
 * without a model; `api_key` is '' without a key (a wallet). Charges and refunds only.
 */
export const usageDaily = pgTable(
  'usage_daily',
  {
    accountId: uuid('account_id').notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    modelKey: text('model_key').notNull(),
    sku: text('sku').notNull(),
    apiKey: text('api_key').notNull(),
    currency: currency().notNull(),
    /** Signed sum of the lines' amounts (charges < 0, refunds > 0). */
    amountMicros: micros('amount_micros').notNull(),
    /** Sum of the lines' units as the ledger writes them (token SKUs in millions). */
    units: numeric('units').notNull(),
  },
  (t) => [index('usage_daily_account_day_idx').on(t.accountId, t.day)],
);

/**
 * Every ledger line item: ledger_entries' rows (line 0) and each line of each charge (its
 * position in `lines`). (created_at, id, line) orders them and names one. Defined in
 * migration 0007 (a charge's notes added by ledger_charge_notes), for operators and tests:
 * the usage endpoints read the two tables themselves (src/billing/usage-query.ts), each
 * limited before its charges are expanded.
 */
export const ledgerLines = pgView('ledger_lines', {
  id: bigint('id', { mode: 'number' }).notNull(),
  line: integer('line').notNull(),
  ...requestColumns(),
  kind: ledgerKind().notNull(),
  currency: currency().notNull(),
  sku: text('sku').notNull(),
  modelId: text('model_id'),
  units: text('units').notNull(),
  pricePerUnitUsd: text('price_per_unit_usd').notNull(),
  amountMicros: micros('amount_micros').notNull(),
  notes: text('notes'),
  ...usageColumns(),
  createdAt: ledgerTime(),
}).existing();

/**
 * Every ledger row's amount without expanding line items (a charge's total): what sums over
 * the ledger read. Defined in migration 0008.
 */
export const ledgerAmounts = pgView('ledger_amounts', {
  id: bigint('id', { mode: 'number' }).notNull(),
  ...requestColumns(),
  kind: ledgerKind().notNull(),
  currency: currency().notNull(),
  modelId: text('model_id'),
  amountMicros: micros('amount_micros').notNull(),
  createdAt: ledgerTime(),
}).existing();

/**
 * Reservations that outlive their request (a queued video job, an async audio job): the hold
 * a charge keeps until it is settled, refunded or expired, so a restart can restore it.
 */
export const reservations = pgTable(
  'reservations',
  {
    requestId: text('request_id').primaryKey(),
    accountId: uuid('account_id').notNull(),
    apiKeyId: uuid('api_key_id'),
    /** Null for calls priced without a catalog model. */
    modelId: text('model_id'),
    currency: currency().notNull(),
    amountMicros: micros('amount_micros').notNull(),
    /** The key's spend counter the hold counts against, '' when the key has no limit. */
    counter: text('counter').notNull().default(''),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('reservations_expires_idx').on(t.expiresAt)],
);

/**
 * Settlements the ledger writer could not write (a row the database refuses, such as the
 * charge of an account deleted meanwhile), moved aside with the database's error so that
 * later rows are not blocked behind them. No foreign key: the account may be gone. The
 * request id is the key, so a journal replaying the same row does not add it twice.
 */
export const ledgerDeadLetters = pgTable('ledger_dead_letters', {
  requestId: text('request_id').primaryKey(),
  accountId: text('account_id').notNull(),
  /** The settlement as the meter queued it (LedgerCharge). */
  charge: jsonb('charge').notNull(),
  error: text('error').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

/** A public character: a named system prompt with a default model. */
export const characters = pgTable('characters', {
  id: uuid('id').primaryKey().defaultRandom(),
  slug: text('slug').notNull().unique(),
  name: text('name').notNull(),
  description: text('description'),
  systemPrompt: text('system_prompt').notNull(),
  modelId: text('model_id').notNull(),
  author: text('author').notNull().default('svc'),
  adult: boolean('adult').notNull().default(false),
  featured: boolean('featured').notNull().default(false),
  webEnabled: boolean('web_enabled').notNull().default(false),
  tags: jsonb('tags').$type<string[]>().notNull().default([]),
  photoUrl: text('photo_url'),
  shareUrl: text('share_url'),
  imports: integer('imports').notNull().default(0),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/** A review of a character. Hidden reviews count in neither the list nor the summary. */
export const characterReviews = pgTable(
  'character_reviews',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    characterId: uuid('character_id')
      .notNull()
      .references(() => characters.id, { onDelete: 'cascade' }),
    accountId: uuid('account_id'),
    username: text('username').notNull(),
    userAvatarUrl: text('user_avatar_url'),
    locale: text('locale'),
    message: text('message'),
    rating: integer('rating').notNull(),
    visible: boolean('visible').notNull().default(true),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('reviews_character_idx').on(t.characterId, t.createdAt)],
);

/** Requests refused by a rate limit or the abuse guard, for GET /api_keys/rate_limits/log. */
export const rateLimitLogs = pgTable(
  'rate_limit_logs',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    accountId: uuid('account_id').notNull(),
    apiKeyId: uuid('api_key_id'),
    modelId: text('model_id').notNull(),
    tier: text('tier').notNull(),
    type: text('type').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('rate_limit_logs_account_idx').on(t.accountId, t.createdAt)],
);

/**
 * Wallet top-ups (x402). `payment_id` is derived from the network and the authorization's
 * nonce, so its unique constraint refuses a replayed payment. A row moves pending (claimed,
 * settling) -> settled (the facilitator confirmed it) -> credited (the ledger credit committed
 * in the same transaction), or to failed; start-up recovery finishes pending and settled rows.
 */
export const walletPayments = pgTable(
  'wallet_payments',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    paymentId: text('payment_id').notNull().unique(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    network: text('network').notNull(),
    amountMicros: micros('amount_micros').notNull(),
    transaction: text('transaction'),
    status: text('status', { enum: ['pending', 'settled', 'credited', 'failed'] })
      .notNull()
      .default('credited'),
    /** The authorization nonce (EVM) or the transaction's hash (Solana) that makes the payment single-use. */
    nonce: text('nonce'),
    payer: text('payer'),
    /** The x402 payment payload and the requirements it was settled against, for recovery. */
    payload: jsonb('payload'),
    requirements: jsonb('requirements'),
    /** Why a payment failed (the facilitator's reason code). */
    error: text('error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('wallet_payments_open_idx')
      .on(t.status)
      .where(sql`${t.status} IN ('pending', 'settled')`),
  ],
);

export { clonedVoices } from './audio-schema';
export { mediaJobs } from './jobs-schema';
export { storedResponses } from './responses-schema';
export { requestLog } from './request-log-schema';
export { requestLogBodies } from './request-log-bodies-schema';
