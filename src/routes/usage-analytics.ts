import { Elysia, t } from 'elysia';
import { analyticsPeriod } from '../billing/analytics-range';
import { usageAnalytics, UsageAnalyticsSchema } from '../billing/analytics-report';
import type { AppDeps } from '../deps';
import type { Stages } from '../gates';
import { upstreamError } from '../http/errors';
import type { Caller } from '../http/request-context';
import { ErrorBody } from '../http/error-body';
import { accountScope } from './account-scope';

/** How long the analytics queries may run before the caller gets a 504 (the reference's query timeout). */
export const ANALYTICS_TIMEOUT_MS = 10_000;

const AnalyticsQuery = t.Object({
  lookback: t.Optional(t.String({ maxLength: 16, description: 'Nd, 1d to 90d; default 7d: the last N UTC days, today included' })),
  startDate: t.Optional(t.String({ maxLength: 16, description: 'YYYY-MM-DD, inclusive; with endDate' })),
  endDate: t.Optional(t.String({ maxLength: 16, description: 'YYYY-MM-DD, inclusive; at most 366 days after startDate' })),
  accountId: t.Optional(t.String({ maxLength: 64, description: "Operator keys only: another account's analytics" })),
  include: t.Optional(
    t.Literal('totals', {
      description: "svc: `totals` adds the period's total per currency (USDC apart from USD); off, the body is exactly the reference's",
    }),
  ),
});

/** Runs `work`, or answers 504 when it takes longer than `ms` (the query goes on, its result unused). */
async function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(upstreamError(504, `Query timed out after ${ms} ms - try reducing the lookback period`)), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
    work.catch(() => {});
  }
}

/** GET /billing/usage-analytics (tag Billing, beta): aggregated usage by day, model and API key. */
export function usageAnalyticsRoutes(deps: AppDeps, stages: Stages, timeoutMs = ANALYTICS_TIMEOUT_MS) {
  return new Elysia({ name: 'svc.routes.usage-analytics' }).use(stages).get(
    '/billing/usage-analytics',
    async function getBillingUsageAnalytics({ svc, query }) {
      const caller = svc.caller as Caller;
      const accountId = accountScope(caller, query.accountId, 'analytics');
      const period = analyticsPeriod(query, deps.now());
      // Charges reach the ledger in batches: write them so a caller sees its own requests.
      await deps.meter.flush();
      const report = await within(timeoutMs, usageAnalytics(deps.storage.db, deps.models, accountId, period));
      // The reference's body allows no other field: svc's totals come only when asked for.
      if (query.include !== 'totals') delete report.totals;
      return report;
    },
    {
      auth: 'INFERENCE',
      query: AnalyticsQuery,
      // Error statuses in `response`: the OpenAPI plugin drops `detail.responses` when a route has one.
      response: { 200: UsageAnalyticsSchema, 403: ErrorBody, 504: ErrorBody },
      detail: {
        operationId: 'getBillingUsageAnalytics',
        summary: 'Usage by day, model and key',
        tags: ['Billing'],
        security: [{ BearerAuth: [] }, { siwx: [] }],
        description:
          'Usage aggregated in SQL over the ledger: by UTC day (every day of the period, newest first), by model with its SKU breakdown, ' +
          'by API key, daily charts of the top 8 models and keys, and `totals` per currency. Amounts are what was used (charges less refunds) ' +
          "in the currency's units; USD figures include a wallet's USDC. `lookback=Nd` (1d-90d, default 7d) or `startDate`/`endDate` " +
          '(YYYY-MM-DD, inclusive, at most 366 days). Any key or a signed-in wallet reads its own account; an operator key may pass `accountId`. ' +
          `504 when the queries take longer than ${ANALYTICS_TIMEOUT_MS / 1000} s.`,
      },
    },
  );
}
