import { boolean, index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * Request and response bodies of the requests an operator chose to capture
 * (`observability.requestLog.bodies`), PII redacted and cut at the cap before they are written.
 * A table of its own: most requests have none, and the log's rows stay narrow. Swept with
 * the request log (by `at`); no foreign key, as for the log itself.
 */
export const requestLogBodies = pgTable(
  'request_log_bodies',
  {
    /** The CF-RAY of the request (its request_log row's id). */
    requestId: text('request_id').primaryKey(),
    at: timestamp('at', { withTimezone: true, precision: 3 }).notNull(),
    /** The request's JSON body (a file part as its name and size), redacted; null when it had none. */
    request: text('request'),
    requestTruncated: boolean('request_truncated').notNull().default(false),
    /** The JSON answer, or a stream's text concatenated, redacted; null when there was none. */
    response: text('response'),
    responseTruncated: boolean('response_truncated').notNull().default(false),
  },
  (t) => [index('request_log_bodies_at_idx').on(t.at)],
);
