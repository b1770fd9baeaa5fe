import { Elysia, t } from 'elysia';
import type { AppDeps } from '../deps';
import type { Stages } from '../gates';
import { ErrorBody } from '../http/error-body';
import { badRequest, notFound } from '../http/errors';
import { decodeCursor, listRequests, requestDetail, type RequestFilters } from '../request-log/query';

const Nullable = <S extends Parameters<typeof t.Union>[0][number]>(s: S) => t.Union([s, t.Null()]);

const ms = (description: string) => Nullable(t.Number({ minimum: 0, description: `${description} (ms); null when not reached` }));

/** The stages' durations, in the order they run (src/request-log/stages.ts). */
const Stages = t.Object(
  {
    auth_ms: ms('Authentication'),
    admission_ms: ms("The meter's admission: rate limits, balance, the reservation"),
    plugins_ms: ms('The request-side plugins (chat and responses)'),
    upstream_ttfb_ms: ms('From the first upstream attempt to its answer in hand (a stream: its first content; JSON: the whole body)'),
    upstream_ms: ms('From the first upstream attempt to the end of its answer (a stream: its last byte)'),
    settlement_ms: ms("The meter's settlement (or release)"),
  },
  {
    description:
      'Where the time went, one duration per stage in the order they run, from `at` (the arrival) to `latencyMs`; the gaps between them are routing, validation and the response itself. Null for a request logged before stages were recorded.',
  },
);

/** One request-log row. */
const RequestRow = t.Object({
  requestId: t.String({ description: 'The CF-RAY of the request' }),
  at: t.String({ format: 'date-time' }),
  accountId: Nullable(t.String()),
  apiKeyId: Nullable(t.String({ description: 'The id of the API key (never its secret)' })),
  method: t.String(),
  route: t.String({ description: 'The route pattern, or `unmatched`' }),
  model: Nullable(t.String({ description: 'The model that answered (x-svc-model-id)' })),
  replica: Nullable(t.String({ description: 'The provider replica that served it (x-svc-model-router)' })),
  status: t.Integer(),
  error: Nullable(t.String()),
  latencyMs: t.Integer({ description: 'To the end of the answer (a stream: its end)' }),
  ttfbMs: Nullable(t.Integer({ description: 'To the response headers of a streamed answer' })),
  stream: Nullable(t.String({ description: 'How a stream ended: complete, error or client_gone' })),
  stages: Nullable(Stages),
  upstreamMs: Nullable(
    t.Integer({ description: 'From the first upstream attempt to the end of its answer; null when no upstream was called' }),
  ),
  cache: Nullable(t.String({ description: 'What the response cache did (its `x-svc-cache`: HIT, MISS, ...); null when it did not run' })),
  guardrails: Nullable(
    t.String({ description: 'What the guardrails did (their `x-svc-guardrails`: `pii=redact, deny_list=pass`); null when none ran' }),
  ),
  promptTokens: Nullable(t.Integer()),
  completionTokens: Nullable(t.Integer()),
  costMicros: Nullable(t.Integer({ description: 'The settled charge in micro-units of `currency`' })),
  currency: Nullable(t.String()),
  clientIp: Nullable(t.String()),
  userAgent: Nullable(t.String()),
});
const LedgerRow = t.Object({
  requestId: t.String(),
  accountId: t.String(),
  apiKeyId: Nullable(t.String()),
  currency: t.String(),
  modelId: Nullable(t.String()),
  amountMicros: t.Integer(),
  lines: t.Array(t.Unknown()),
  createdAt: t.String({ format: 'date-time' }),
});
const CapturedBodies = t.Object(
  {
    request: Nullable(t.String({ description: 'The request body as JSON, PII redacted, cut at the cap' })),
    requestTruncated: t.Boolean(),
    response: Nullable(t.String({ description: "The JSON answer, or a stream's text, PII redacted, cut at the cap" })),
    responseTruncated: t.Boolean(),
  },
  { description: 'Present when the operator captures bodies for this account or key (observability.requestLog.bodies)' },
);
const ListResult = t.Object({
  object: t.Literal('list'),
  data: t.Array(RequestRow),
  next: Nullable(t.String({ description: 'Pass as `after` for the next page; null on the last' })),
});

const RequestDetail = t.Composite([RequestRow, t.Object({ ledger: t.Array(LedgerRow), bodies: t.Optional(CapturedBodies) })]);

/** One row of GET /admin/requests, as the console reads it. */
export type RequestRowBody = typeof RequestRow.static;
/** GET /admin/requests/{requestId}, as the console reads it. */
export type RequestDetailBody = typeof RequestDetail.static;
/** The stage durations of a row. */
export type StagesBody = typeof Stages.static;

const Query = t.Object({
  key: t.Optional(t.String({ format: 'uuid', description: 'API key id' })),
  account: t.Optional(t.String({ format: 'uuid', description: 'Account id' })),
  model: t.Optional(t.String({ description: 'Model id that answered' })),
  route: t.Optional(t.String({ description: 'Route pattern, e.g. /api/v1/chat/completions' })),
  status: t.Optional(t.String({ pattern: '^([1-5]xx|[1-5][0-9]{2})$', description: 'A status class (4xx, 5xx) or a status (429)' })),
  since: t.Optional(t.String({ format: 'date-time', description: 'From this time (inclusive)' })),
  until: t.Optional(t.String({ format: 'date-time', description: 'Up to this time (inclusive)' })),
  minLatencyMs: t.Optional(t.Integer({ minimum: 0, description: 'Only requests that took at least this long' })),
  error: t.Optional(t.String({ minLength: 1, maxLength: 200, description: 'Text the error string contains (case-insensitive)' })),
  cache: t.Optional(t.String({ minLength: 1, maxLength: 20, description: 'What the cache did, e.g. HIT or MISS (case-insensitive)' })),
  guardrails: t.Optional(
    t.String({ minLength: 1, maxLength: 100, description: 'Text the guardrails outcome contains, e.g. `deny` or `pii=redact`' }),
  ),
  after: t.Optional(t.String({ description: "The previous page's `next`" })),
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 500, description: 'Page size (default 100)' })),
});

/** The query string as filters (a bad cursor is a 400 naming `after`). */
function filtersOf(q: typeof Query.static): RequestFilters {
  const after = q.after === undefined ? undefined : decodeCursor(q.after);
  if (after === null) throw badRequest('Invalid query parameters: after', [{ path: ['after'], message: 'Expected a `next` value' }]);
  const status = q.status?.endsWith('xx') ? { class: Number(q.status[0]) } : q.status ? { exact: Number(q.status) } : undefined;
  return {
    key: q.key,
    account: q.account,
    model: q.model,
    route: q.route,
    status,
    since: q.since ? new Date(q.since) : undefined,
    until: q.until ? new Date(q.until) : undefined,
    minLatencyMs: q.minLatencyMs,
    error: q.error,
    cache: q.cache,
    guardrails: q.guardrails,
    after,
    limit: q.limit ?? 100,
  };
}

/**
 * GET /admin/requests and /admin/requests/{requestId}: the request log, newest first, filtered
 * and paged by a keyset cursor. ADMIN keys only; a key of the operator's account reads every
 * account's requests, any other ADMIN key only its own account's.
 */
export function adminRequestRoutes(deps: AppDeps, stages: Stages) {
  const db = deps.storage.db;
  const tags = ['Admin'];
  // The account an ADMIN key outside the operator's account is held to.
  const scopeOf = (caller: { accountId: string; apiKey: { operator?: boolean } | null } | null) =>
    caller?.apiKey?.operator ? undefined : caller?.accountId;
  return new Elysia({ name: 'svc.routes.admin-requests' })
    .use(stages)
    .get(
      '/admin/requests',
      async function listRequestLog({ query, svc }) {
        const filters = filtersOf(query);
        const scope = scopeOf(svc.caller);
        if (scope) filters.account = scope;
        const page = await listRequests(db, filters);
        return { object: 'list' as const, ...page };
      },
      {
        auth: 'ADMIN',
        query: Query,
        response: { 200: ListResult, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody },
        detail: { operationId: 'listRequests', summary: 'Search the request log, newest first (ADMIN key)', tags },
      },
    )
    .get(
      '/admin/requests/:requestId',
      async function getRequestLogEntry({ params, svc }) {
        const found = await requestDetail(db, params.requestId);
        const scope = scopeOf(svc.caller);
        if (!found || (scope && found.accountId !== scope)) throw notFound('Request not found: requestId');
        return found;
      },
      {
        auth: 'ADMIN',
        params: t.Object({ requestId: t.String({ minLength: 1, maxLength: 200 }) }),
        response: {
          200: RequestDetail,
          401: ErrorBody,
          403: ErrorBody,
          404: ErrorBody,
        },
        detail: { operationId: 'getRequest', summary: 'One request of the log with its ledger rows (ADMIN key)', tags },
      },
    );
}
