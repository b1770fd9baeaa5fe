import { Elysia, t } from 'elysia';
import { microsToNumber } from '../billing/money';
import type { AppDeps } from '../deps';
import type { Stages } from '../gates';
import { ErrorBody } from '../http/error-body';
import { notFound } from '../http/errors';
import type { Caller } from '../http/request-context';
import { AccountLimitsBody, parseAccountLimitsChange } from '../limits/admin-body';
import type { AccountLimits } from '../limits/account-limits';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const LOG_ENTRIES = 50;

const Limit = t.Object({ amount: t.Integer(), type: t.Union([t.Literal('RPM'), t.Literal('TPM')]) });
const RateLimitsResponse = t.Object({
  data: t.Object({
    accessPermitted: t.Boolean(),
    apiTier: t.Object({ id: t.String({ description: 'standard or partner' }), isCharged: t.Boolean() }),
    balances: t.Object({ USD: t.Optional(t.Number()), DIEM: t.Optional(t.Number()) }),
    keyExpiration: t.Union([t.String({ format: 'date-time' }), t.Null()]),
    nextEpochBegins: t.String({ format: 'date-time', description: 'Next UTC midnight, when EPOCH key limits reset' }),
    rateLimits: t.Array(t.Object({ apiModelId: t.String(), rateLimits: t.Array(Limit) })),
  }),
});
const LogResponse = t.Object({
  object: t.Literal('list'),
  data: t.Array(
    t.Object({
      apiKeyId: t.Union([t.String(), t.Null()]),
      modelId: t.String(),
      rateLimitTier: t.String(),
      rateLimitType: t.String({ description: 'RPM, TPM or FAILED_REQUESTS' }),
      timestamp: t.String({ format: 'date-time' }),
    }),
  ),
});
const AccountLimitsResponse = t.Object({
  success: t.Boolean(),
  data: t.Object({ accountId: t.String(), tier: t.String(), overrides: t.Union([t.Record(t.String(), t.Unknown()), t.Null()]) }),
});

/** The caller of an authenticated route (the auth gate guarantees one). */
const callerOf = (caller: Caller | null) => caller as Caller;

/** Next UTC midnight after `now`, ISO 8601. */
function nextEpoch(now: number): string {
  const d = new Date(now);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1)).toISOString();
}

/**
 * Rate-limit endpoints (spec 4.8): the limits in force for the caller, the log of refused
 * requests (at both paths the spec names), and the operator's per-account settings.
 * Static segments beat `/api_keys/:id` in Elysia's router, so these are not swallowed.
 */
export function rateLimitRoutes(deps: AppDeps, stages: Stages) {
  const tags = ['API Keys'];
  async function listLogs({ svc }: { svc: { caller: Caller | null } }) {
    return { object: 'list' as const, data: await deps.limits.refusals(callerOf(svc.caller).accountId, LOG_ENTRIES) };
  }
  const logRoute = { auth: 'ADMIN' as const, response: { 200: LogResponse } };

  return new Elysia({ name: 'svc.routes.rate-limits' })
    .use(stages)
    .get(
      '/api_keys/rate_limits',
      async function getApiKeyRateLimits({ svc }) {
        const caller = callerOf(svc.caller);
        const [limits, balances] = await Promise.all([deps.limits.limitsFor(caller.accountId), deps.meter.balances(caller.accountId)]);
        const rateLimits = deps.models.list().map((model) => {
          const inForce = limits.of(model);
          const list: { amount: number; type: 'RPM' | 'TPM' }[] = [];
          if (inForce) {
            list.push({ amount: inForce.rpm, type: 'RPM' });
            if (inForce.tpm !== null) list.push({ amount: inForce.tpm, type: 'TPM' });
          }
          return { apiModelId: model.id, rateLimits: list };
        });
        const shown: { USD?: number; DIEM?: number } = {};
        if (balances.USD !== undefined) shown.USD = microsToNumber(balances.USD);
        if (balances.DIEM !== undefined) shown.DIEM = microsToNumber(balances.DIEM);
        return {
          data: {
            accessPermitted: true,
            apiTier: { id: limits.tier, isCharged: true },
            balances: shown,
            keyExpiration: caller.apiKey?.expiresAt?.toISOString() ?? null,
            nextEpochBegins: nextEpoch(deps.now()),
            rateLimits,
          },
        };
      },
      {
        auth: 'ADMIN',
        response: { 200: RateLimitsResponse },
        detail: { operationId: 'getApiKeyRateLimits', summary: 'Rate limits in force for the caller, and its balances', tags },
      },
    )
    .get('/api_keys/rate_limits/log', listLogs, {
      ...logRoute,
      detail: { operationId: 'getApiKeyRateLimitLogs', summary: 'The last 50 requests of the account refused by a rate limit', tags },
    })
    .get('/api_keys/rate_limit_logs', listLogs, {
      ...logRoute,
      detail: { operationId: 'getApiKeyRateLimitLogsAlias', summary: 'Same as /api_keys/rate_limits/log', tags },
    })
    .put(
      '/admin/accounts/:accountId/rate_limits',
      async function putAccountRateLimits({ params, body }) {
        const change = parseAccountLimitsChange(body, (id) => deps.models.get(id) !== undefined);
        const updated: AccountLimits | null = UUID.test(params.accountId)
          ? await deps.limits.updateAccount(params.accountId, change)
          : null;
        if (!updated) throw notFound('Account not found');
        return { success: true, data: { accountId: params.accountId, tier: updated.tier, overrides: updated.overrides } };
      },
      {
        auth: 'OPERATOR',
        parse: 'json',
        params: t.Object({ accountId: t.String({ description: 'The account id (UUID)' }) }),
        response: { 200: AccountLimitsResponse, 404: ErrorBody },
        detail: {
          operationId: 'putAccountRateLimits',
          summary: "Set an account's rate-limit tier and overrides (operator)",
          tags: ['Admin'],
          // Documented by hand: the body is validated strictly in the handler, not by Elysia (see admin-body.ts).
          requestBody: { required: true, content: { 'application/json': { schema: AccountLimitsBody as unknown as { type: 'object' } } } },
        },
      },
    );
}
