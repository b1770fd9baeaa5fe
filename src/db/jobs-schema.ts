import { bigint, index, integer, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';

const at = (name: string) => timestamp(name, { withTimezone: true, precision: 3 });

/**
 * Asynchronous jobs: media (video, music and sound effects) and background responses
 * (`POST /responses` with `background: true`, id `resp_…`): one row per queued job, claimed
 * by one worker at a time across instances (a lease: `lease_owner` until `lease_until`,
 * taken with FOR UPDATE SKIP LOCKED), polled upstream until done, failed, refused or past
 * its deadline. Its reservation is the meter's, kept under `request_id` until settled or refunded.
 */
export const mediaJobs = pgTable(
  'media_jobs',
  {
    /** The queue_id the client holds. */
    id: text('id').primaryKey(),
    kind: text('kind', { enum: ['video', 'audio', 'response'] }).notNull(),
    accountId: uuid('account_id').notNull(),
    modelId: text('model_id').notNull(),
    /** The request that reserved the price: the meter's reservation id. */
    requestId: text('request_id').notNull(),
    /** The price reserved and charged on completion, as line items (the one pricing function's output). */
    charges: jsonb('charges').$type<{ sku: string; units: number; unitPriceMicros: number }[]>().notNull(),
    providerId: text('provider_id').notNull(),
    upstreamModel: text('upstream_model').notNull(),
    upstreamId: text('upstream_id').notNull(),
    /** PROCESSING, COMPLETED (media stored), FAILED, REFUSED (content policy), DELETED (media removed), CANCELLED (a background response). */
    status: text('status', { enum: ['PROCESSING', 'COMPLETED', 'FAILED', 'REFUSED', 'DELETED', 'CANCELLED'] }).notNull(),
    error: text('error'),
    /** Whether the reservation was settled (charged); a failed job's charge is refunded; released: given back uncharged (cancelled before its call). */
    outcome: text('outcome', { enum: ['charged', 'refunded', 'released'] }),
    mediaKey: text('media_key'),
    mediaType: text('media_type'),
    mediaBytes: bigint('media_bytes', { mode: 'number' }),
    polls: integer('polls').notNull().default(0),
    leaseOwner: text('lease_owner'),
    leaseUntil: at('lease_until'),
    nextPollAt: at('next_poll_at').notNull(),
    deadlineAt: at('deadline_at').notNull(),
    createdAt: at('created_at').notNull(),
    finishedAt: at('finished_at'),
    /** What a job kind run by svc itself needs to run (a background response: its chat request and caller); null for media. */
    body: jsonb('body').$type<Record<string, unknown>>(),
  },
  (t) => [index('media_jobs_due_idx').on(t.status, t.nextPollAt), index('media_jobs_model_idx').on(t.modelId, t.status)],
);
