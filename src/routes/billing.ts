import { Elysia, t } from 'elysia';
import { ErrorBody } from '../http/error-body';
import { tokenSecret } from '../auth/web3-token';
import type { Currency } from '../billing/credit';
import { microsToNumber } from '../billing/money';
import { usageCsv, wantsCsv } from '../billing/usage-csv';
import { decodeCursor, encodeCursor } from '../billing/usage-cursor';
import { usageAfter, usageEntry, usageLedgerEntry, usagePage, type UsageFilter } from '../billing/usage-query';
import { HistoryCurrency, UsageCurrency, UsageEntry, UsageLedgerEntry } from '../billing/usage-schema';
import type { AppDeps } from '../deps';
import type { Stages } from '../gates';
import { badRequest, invalidField } from '../http/errors';
import { wholeText } from '../http/large-body';
import type { Caller } from '../http/request-context';
import { accountScope } from './account-scope';

const errors = { 400: ErrorBody, 401: ErrorBody, 500: ErrorBody };
const tags = ['Billing'];
const DEPRECATION_MESSAGE =
  'This endpoint is deprecated and will be removed in a future release. Use GET /api/v1/billing/usage-history instead, which provides the same data with keyset pagination.';
const CURSOR_ERROR = 'Invalid or expired cursor; restart from the first page';
const CURSOR_TTL_SECONDS = 24 * 3600;
const ISO_8601 = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

const UsageQuery = t.Object({
  currency: t.Optional(UsageCurrency),
  startDate: t.Optional(t.String({ maxLength: 40, description: 'ISO 8601 date or date-time, inclusive' })),
  endDate: t.Optional(t.String({ maxLength: 40, description: 'ISO 8601 date or date-time, exclusive' })),
  limit: t.Optional(t.Integer({ default: 200, description: 'Entries per page, 0 < limit <= 500; default 200' })),
  page: t.Optional(t.Integer({ default: 1, description: 'Page number, > 0; default 1' })),
  sortOrder: t.Optional(
    t.Union([t.Literal('asc'), t.Literal('desc')], { default: 'desc', description: 'Order of createdAt; default desc' }),
  ),
  accountId: t.Optional(t.String({ maxLength: 64, description: "svc: operator keys only, another account's usage" })),
});
const UsageList = t.Object({
  warningMessage: t.String(),
  data: t.Array(UsageLedgerEntry),
  pagination: t.Object({ limit: t.Integer(), page: t.Integer(), total: t.Integer(), totalPages: t.Integer() }),
});

const HISTORY_PARAMS = new Set(['startTimestamp', 'endTimestamp', 'currency', 'pageSize', 'cursor']);
const HistoryQuery = t.Object({
  startTimestamp: t.Optional(t.String({ maxLength: 40, description: 'ISO 8601 date-time, inclusive' })),
  endTimestamp: t.Optional(t.String({ maxLength: 40, description: 'ISO 8601 date-time, exclusive' })),
  currency: t.Optional(HistoryCurrency),
  pageSize: t.Optional(t.Integer({ default: 1000, description: 'Entries per page, 10..1000; default 1000' })),
  cursor: t.Optional(
    t.String({
      maxLength: 512,
      pattern: '^[A-Za-z0-9_-]+$',
      description: 'nextCursor of the previous page; a continuation sends only this',
    }),
  ),
});
const HistoryPage = t.Object({ data: t.Array(UsageEntry, { maxItems: 1000 }), nextCursor: t.Union([t.String(), t.Null()]) });

const Balance = t.Object({
  canConsume: t.Boolean(),
  consumptionCurrency: t.Union([t.Literal('DIEM'), t.Literal('BUNDLED_CREDITS'), t.Literal('USD'), t.Literal('USDC'), t.Null()], {
    description: 'What the next request is paid in; USDC for wallet callers',
  }),
  balances: t.Object({
    diem: t.Union([t.Number(), t.Null()]),
    usd: t.Union([t.Number(), t.Null()]),
    bundledCredits: t.Optional(t.Number({ description: 'Present when the account holds bundled credits' })),
    usdc: t.Optional(t.Number({ description: 'Wallet callers: the USDC credit their requests are paid from' })),
  }),
  diemEpochAllocation: t.Number({ description: 'DIEM allocated per epoch (no staking here: 0)' }),
});

const field = (name: string, reason: string) => invalidField(name, reason, 'query');

/** An integer query value within bounds (Elysia's own bound errors do not name the field). */
function bounded(name: string, value: number | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (value < min) throw field(name, `must be at least ${min}`);
  if (value > max) throw field(name, `must be at most ${max}`);
  return value;
}

/** An ISO 8601 date or date-time query value as a Date. */
function isoDate(name: string, value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const ms = ISO_8601.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) throw field(name, 'must be an ISO 8601 date or date-time such as 2026-01-31 or 2026-01-31T12:00:00Z');
  return new Date(ms);
}

function ordered(startName: string, start: Date | undefined, end: Date | undefined) {
  if (start && end && start.getTime() > end.getTime()) throw field(startName, 'must not be after the end date');
}

const accountOf = (caller: Caller | null) => caller as Caller;

/** `billing-usage-history-YYYYMMDDTHHMMSSmmmZ.csv` for the time `ms`. */
function historyFilename(ms: number): string {
  return `billing-usage-history-${new Date(ms).toISOString().replace(/[-:]/g, '').replace('.', '')}.csv`;
}

/**
 * The CSV download. Typed `never` because Elysia's handler typing does not admit a Response
 * beside the declared JSON schema; Response bodies are not validated against it anyway.
 */
function csvResponse(body: string, filename: string, headers: Record<string, string | number>): never {
  const out = new Headers();
  for (const [k, v] of Object.entries(headers)) out.set(k, String(v));
  out.set('content-type', 'text/csv; charset=utf-8');
  out.set('content-disposition', `attachment; filename=${filename}`);
  return new Response(wholeText(body), { headers: out }) as never;
}

/**
 * Billing (tag Billing, beta; spec 4.4, API-NOTES 9). Usage and usage-history are account
 * data, not inference, so they take an ADMIN key; the balance answers any key or wallet.
 * Usage lists CHARGE and REFUND ledger lines (credits and top-ups are not usage); `amount`
 * is the amount charged, positive, and negative for a refund.
 */
export function billingRoutes(deps: AppDeps, stages: Stages) {
  const db = deps.storage.db;
  const successor = `${deps.config.basePath}/billing/usage-history`;
  let secret: Promise<Buffer> | null = null;
  const cursorSecret = () => (secret ??= tokenSecret(deps.config.tokenSecret, deps.kv).catch((e) => ((secret = null), Promise.reject(e))));

  return new Elysia({ name: 'svc.routes.billing' })
    .use(stages)
    .get(
      '/billing/usage',
      async function getBillingUsage({ svc, query, request, set }) {
        const limit = bounded('limit', query.limit, 200, 1, 500);
        const page = bounded('page', query.page, 1, 1, Number.MAX_SAFE_INTEGER);
        const start = isoDate('startDate', query.startDate);
        const end = isoDate('endDate', query.endDate);
        ordered('startDate', start, end);
        const accountId = accountScope(accountOf(svc.caller), query.accountId, 'usage');
        // Charges reach the ledger in batches: write them so a caller reads its own requests.
        await deps.meter.flush();
        const filter: UsageFilter = { accountId, currency: query.currency, start, end };
        const offset = (page - 1) * limit;
        const { rows, total } =
          offset > Number.MAX_SAFE_INTEGER / 2
            ? { rows: [], total: 0 }
            : await usagePage(db, filter, { limit, offset, order: query.sortOrder ?? 'desc' });
        const totalPages = Math.ceil(total / limit);
        Object.assign(set.headers, {
          'x-pagination-limit': String(limit),
          'x-pagination-page': String(page),
          'x-pagination-total': String(total),
          'x-pagination-total-pages': String(totalPages),
        });
        if (wantsCsv(request.headers.get('accept')))
          return csvResponse(usageCsv(rows), 'billing_usage.csv', set.headers as Record<string, string>);
        return { warningMessage: DEPRECATION_MESSAGE, data: rows.map(usageLedgerEntry), pagination: { limit, page, total, totalPages } };
      },
      {
        auth: 'ADMIN',
        // Before validation and auth, so errors carry the deprecation headers too.
        transform: function announceDeprecation({ set }) {
          set.headers.deprecation = '@1783555200';
          set.headers.link = `<${successor}>; rel="successor-version"`;
        },
        query: UsageQuery,
        response: { 200: UsageList, 403: ErrorBody, ...errors },
        detail: {
          operationId: 'getBillingUsage',
          deprecated: true,
          summary: 'Billing usage (deprecated: use usage-history). Accept: application/json or text/csv',
          tags,
        },
      },
    )
    .get(
      '/billing/usage-history',
      async function getBillingUsageHistory({ svc, query, request, set }) {
        const accountId = accountOf(svc.caller).accountId;
        const names = [...new URL(request.url).searchParams.keys()];
        const unknown = names.find((n) => !HISTORY_PARAMS.has(n));
        if (unknown) throw field(unknown, 'is not a known parameter');
        let filter: UsageFilter;
        let pageSize: number;
        let after: { ts: string; id: number; line: number } | null = null;
        if (query.cursor !== undefined) {
          const extra = names.find((n) => n !== 'cursor');
          if (extra) throw badRequest(CURSOR_ERROR, [{ path: [extra], message: 'A continuation sends only cursor' }]);
          const c = decodeCursor(await cursorSecret(), query.cursor, Math.floor(deps.now() / 1000));
          if (!c || c.accountId !== accountId) throw badRequest(CURSOR_ERROR, [{ path: ['cursor'], message: 'Invalid or expired cursor' }]);
          filter = {
            accountId,
            currency: c.currency ?? undefined,
            start: c.start ? new Date(c.start) : undefined,
            end: c.end ? new Date(c.end) : undefined,
          };
          pageSize = c.pageSize;
          after = { ts: c.ts, id: c.id, line: c.line };
        } else {
          pageSize = bounded('pageSize', query.pageSize, 1000, 10, 1000);
          const start = isoDate('startTimestamp', query.startTimestamp);
          const end = isoDate('endTimestamp', query.endTimestamp);
          ordered('startTimestamp', start, end);
          filter = { accountId, currency: query.currency, start, end };
        }
        await deps.meter.flush();
        const rows = await usageAfter(db, filter, after, pageSize + 1);
        const page = rows.slice(0, pageSize);
        const last = page[page.length - 1];
        const nextCursor =
          rows.length > pageSize && last
            ? encodeCursor(await cursorSecret(), {
                accountId,
                start: filter.start?.toISOString() ?? null,
                end: filter.end?.toISOString() ?? null,
                currency: filter.currency ?? null,
                pageSize,
                ts: last.ts,
                id: last.id,
                line: last.line,
                exp: Math.floor(deps.now() / 1000) + CURSOR_TTL_SECONDS,
              })
            : null;
        if (wantsCsv(request.headers.get('accept'))) {
          if (nextCursor) set.headers['x-next-cursor'] = nextCursor;
          return csvResponse(usageCsv(page), historyFilename(deps.now()), set.headers as Record<string, string>);
        }
        return { data: page.map(usageEntry), nextCursor };
      },
      {
        auth: 'ADMIN',
        query: HistoryQuery,
        response: { 200: HistoryPage, ...errors },
        detail: {
          operationId: 'getBillingUsageHistory',
          summary:
            'Billing usage with keyset pagination, oldest first. Accept: application/json or text/csv (next cursor in x-next-cursor)',
          tags,
        },
      },
    )
    .get(
      '/billing/balance',
      async function getBillingBalance({ svc }) {
        const caller = accountOf(svc.caller);
        const held = await deps.meter.balances(caller.accountId);
        const amount = (c: Currency) => held[c] ?? 0;
        if (caller.via === 'wallet') {
          const usdc = amount('USDC');
          return {
            canConsume: usdc > 0,
            consumptionCurrency: usdc > 0 ? ('USDC' as const) : null,
            balances: { diem: null, usd: null, usdc: microsToNumber(usdc) },
            diemEpochAllocation: 0,
          };
        }
        // The order the meter pays in: DIEM, then bundled credits, then USD.
        const payer = (['DIEM', 'BUNDLED_CREDITS', 'USD'] as const).find((c) => amount(c) > 0) ?? null;
        const bundled = amount('BUNDLED_CREDITS');
        return {
          canConsume: payer !== null,
          consumptionCurrency: payer,
          balances: {
            diem: microsToNumber(amount('DIEM')),
            usd: microsToNumber(amount('USD')),
            ...(bundled ? { bundledCredits: microsToNumber(bundled) } : {}),
          },
          diemEpochAllocation: 0,
        };
      },
      {
        auth: 'ADMIN',
        response: { 200: Balance, 401: ErrorBody, 500: ErrorBody },
        detail: {
          operationId: 'getBillingBalance',
          summary: 'Balances and the currency the next request is paid in (any key or wallet)',
          tags,
        },
      },
    );
}
