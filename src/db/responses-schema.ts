import { index, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';

const at = (name: string) => timestamp(name, { withTimezone: true, precision: 3 });

/**
 * Stored responses of the Responses API (`store`, the default): the response object as the
 * client got it and its input items (item references resolved), kept by account (not by
 * key, so a key's deletion loses nothing) until `expires_at`, when the sweep removes them.
 * `previous_response_id` links a conversation's turns; `root_id` is its first turn's id,
 * the conversation's routing affinity.
 */
export const storedResponses = pgTable(
  'stored_responses',
  {
    id: text('id').primaryKey(),
    accountId: uuid('account_id').notNull(),
    previousResponseId: text('previous_response_id'),
    rootId: text('root_id').notNull(),
    status: text('status').notNull(),
    /** The input items of this turn alone, each with an id. */
    input: jsonb('input').$type<Record<string, unknown>[]>().notNull(),
    /** The Response object (output, usage, cost, the settings it echoes). */
    response: jsonb('response').$type<Record<string, unknown>>().notNull(),
    createdAt: at('created_at').notNull(),
    expiresAt: at('expires_at').notNull(),
  },
  (t) => [index('stored_responses_expiry_idx').on(t.expiresAt)],
);
