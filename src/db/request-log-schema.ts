import { bigint, index, integer, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import type { StageDurations } from '../request-log/stages';

const at = (name: string) => timestamp(name, { withTimezone: true, precision: 3 });

/**
 * The request log: one row per answered API request (every route), written off the response's
 * path in batches and swept after `requestLog.retentionDays`. No foreign keys: a row outlives
 * the scratch account or key it names, and a batch never fails on a deleted one.
 */
export const requestLog = pgTable(
  'request_log',
  {
    /** The CF-RAY of the request. */
    requestId: text('request_id').primaryKey(),
    at: at('at').notNull(),
    accountId: uuid('account_id'),
    /** The API key's id (never its secret); null for wallets and public routes. */
    apiKeyId: uuid('api_key_id'),
    method: text('method').notNull(),
    /** The route pattern (`/api/v1/chat/completions`), or `unmatched`. */
    route: text('route').notNull(),
    /** The model that answered (x-svc-model-id) and the provider replica that served it (x-svc-model-router). */
    model: text('model'),
    replica: text('replica'),
    status: integer('status').notNull(),
    error: text('error'),
    /** To the end of the answer (a stream: its last byte). */
    latencyMs: integer('latency_ms').notNull(),
    /** To the response headers, for a streamed answer (a stream's headers leave with its first byte). */
    ttfbMs: integer('ttfb_ms'),
    /** How a stream ended: complete, error or client_gone; null when not streamed. */
    stream: text('stream'),
    /** The stages' durations in ms (auth, admission, plugins, upstream, settlement): src/request-log/stages.ts. */
    stages: jsonb('stages').$type<StageDurations>(),
    /** From the first upstream attempt to the end of its answer; null when no upstream was called (a cache hit, a refusal). */
    upstreamMs: integer('upstream_ms'),
    /** What the response cache did (`x-svc-cache`: HIT, MISS, ...) and what the guardrails did (`x-svc-guardrails`), when they ran. */
    cache: text('cache'),
    guardrails: text('guardrails'),
    promptTokens: integer('prompt_tokens'),
    completionTokens: integer('completion_tokens'),
    /** The settled charge in micro-units of `currency`; null when nothing was settled. */
    costMicros: bigint('cost_micros', { mode: 'number' }),
    currency: text('currency'),
    clientIp: text('client_ip'),
    userAgent: text('user_agent'),
  },
  (t) => [
    index('request_log_at_idx').on(t.at, t.requestId),
    index('request_log_key_at_idx').on(t.apiKeyId, t.at),
    index('request_log_account_at_idx').on(t.accountId, t.at),
  ],
);
