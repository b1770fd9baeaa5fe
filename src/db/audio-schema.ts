import { index, integer, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';

/**
 * Cloned voices (POST /audio/voices): a `vv_` id usable by its owning account only, for the
 * TTS model it was made for, until `expires_at` (the model's retention window), with what svc
 * read from the sample (its duration and digest).
 */
export const clonedVoices = pgTable(
  'cloned_voices',
  {
    id: text('id').primaryKey(),
    accountId: uuid('account_id').notNull(),
    modelId: text('model_id').notNull(),
    sampleFormat: text('sample_format').notNull(),
    sampleMs: integer('sample_ms').notNull(),
    sampleSha256: text('sample_sha256').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (t) => [index('cloned_voices_account_idx').on(t.accountId)],
);
