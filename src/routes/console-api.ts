import { and, desc, eq, isNull } from 'drizzle-orm';
import { Elysia, t } from 'elysia';
import { microsToNumber } from '../billing/money';
import { cacheSavings } from '../console/cache-savings';
import type { LiveSummary } from '../console/live';
import { sharedLiveRing } from '../console/live-ring';
import { refusalSeries, usageSeries, WINDOWS, type WindowName } from '../console/series';
import { NO_USAGE, usageByKey } from '../auth/key-usage';
import { accounts, apiKeys } from '../db/schema';
import type { AppDeps } from '../deps';
import type { Stages } from '../gates';
import { accountScope } from './account-scope';
import { accountSummary } from './admin-account-list';
import type { Caller } from '../http/request-context';
import { pluginList } from '../plugin-host';

const WindowQuery = t.Optional(
  t.Union(
    Object.keys(WINDOWS).map((w) => t.Literal(w)),
    { description: '24h, 7d or 30d (default 24h)' },
  ),
);
const ACCOUNT_PAGE = 200;
const hide = { hide: true };

/** A provider's state from its last minute of calls: idle, ok, degraded (some errors) or failing (most calls failed). */
function healthOf(p: LiveSummary['providers'][number] | undefined, windowSeconds: number) {
  if (!p || (p.callsPerSecond === 0 && p.errors === 0)) return 'idle';
  const calls = p.callsPerSecond * windowSeconds;
  if (p.errors === 0) return 'ok';
  return p.errors * 2 >= calls ? 'failing' : 'degraded';
}

/**
 * JSON the console pages need and the public API does not give: live rates from this
 * process's metrics, usage and refusals per hour or day, every account with its balances
 * and rate-limit overrides at once, and which replicas serve each model. Authenticated like
 * any account route (the session cookie or a bearer key).
 */
export function consoleApiRoutes(deps: AppDeps, stages: Stages) {
  const ring = sharedLiveRing();
  const simulated = (id: string) => deps.providers.get(id)?.simulated ?? false;
  const live = () => ring.summary(10_000, { plugins: pluginList(deps), simulated });
  const minute = () => ring.summary(60_000);
  const caller = (c: Caller | null) => c as Caller;

  return new Elysia({ name: 'svc.routes.console-api' })
    .use(stages)
    .get('/console/api/live', async () => ({ data: await live() }), { auth: 'OPERATOR', detail: hide })
    .get(
      '/console/api/usage-series',
      async function consoleUsageSeries({ svc, query }) {
        const accountId = accountScope(caller(svc.caller), query.accountId, 'usage');
        await deps.meter.flush();
        const window = (query.window ?? '24h') as WindowName;
        return { data: await usageSeries(deps.storage.db, accountId, window, query.by ?? 'model', deps.now()) };
      },
      {
        auth: 'ADMIN',
        query: t.Object({
          window: WindowQuery,
          by: t.Optional(t.Union([t.Literal('model'), t.Literal('key')])),
          accountId: t.Optional(t.String({ maxLength: 64 })),
        }),
        detail: hide,
      },
    )
    .get(
      '/console/api/cache-savings',
      async function consoleCacheSavings({ svc, query }) {
        const accountId = accountScope(caller(svc.caller), query.accountId, 'usage');
        await deps.meter.flush();
        const window = (query.window ?? '24h') as WindowName;
        return { data: await cacheSavings(deps.storage.db, accountId, window, deps.now()) };
      },
      {
        auth: 'ADMIN',
        query: t.Object({ window: WindowQuery, accountId: t.Optional(t.String({ maxLength: 64 })) }),
        detail: hide,
      },
    )
    .get(
      '/console/api/refusals',
      async function consoleRefusals({ svc, query }) {
        const who = caller(svc.caller);
        const window = (query.window ?? '24h') as WindowName;
        // The operator sees refusals across every account: abuse is rarely one account's.
        const accountId = who.apiKey?.operator ? null : who.accountId;
        return { data: await refusalSeries(deps.storage.db, accountId, window, deps.now()) };
      },
      { auth: 'ADMIN', query: t.Object({ window: WindowQuery }), detail: hide },
    )
    .get(
      '/console/api/key-usage',
      async function consoleKeyUsage({ svc }) {
        // GET /api_keys rounds usage to 4 decimals ("$0 of $5" for cents of chat): the page shows it exact.
        const { accountId } = caller(svc.caller);
        await deps.meter.flush();
        const rows = await deps.storage.db
          .select({ id: apiKeys.id, period: apiKeys.limitPeriod })
          .from(apiKeys)
          .where(and(eq(apiKeys.accountId, accountId), isNull(apiKeys.deletedAt)));
        const usage = await usageByKey(
          deps.storage.db,
          accountId,
          rows.map((r) => r.id),
          deps.now(),
        );
        const data = rows.map((r) => {
          const u = usage.get(r.id) ?? NO_USAGE;
          return { id: r.id, periodMicros: u.since[r.period], trailingSevenDaysMicros: u.trailingSevenDays };
        });
        return { data };
      },
      { auth: 'ADMIN', detail: hide },
    )
    .get(
      '/console/api/accounts',
      async function consoleAccounts() {
        const rows = await deps.storage.db.select().from(accounts).orderBy(desc(accounts.createdAt)).limit(ACCOUNT_PAGE);
        const data = await Promise.all(
          rows.map(async (r) => ({
            ...accountSummary(r),
            rateLimitOverrides: r.rateLimitOverrides ?? null,
            balances: Object.fromEntries(Object.entries(await deps.meter.balances(r.id)).map(([c, m]) => [c, microsToNumber(m ?? 0)])),
          })),
        );
        return { data, truncated: rows.length === ACCOUNT_PAGE };
      },
      { auth: 'OPERATOR', detail: hide },
    )
    .get(
      '/console/api/replicas',
      async function consoleReplicas() {
        const recent = await minute();
        const byId = new Map(recent.providers.map((p) => [p.id, p]));
        const models = Object.fromEntries(
          deps.models
            .list()
            .map((m) => [
              m.id,
              deps.providers.router
                .order(m)
                .map((r) => ({ provider: r.id, upstreamModel: r.upstreamModel, weight: r.weight, inFlight: r.inFlight })),
            ]),
        );
        const ids = new Set(Object.values(models).flatMap((list) => list.map((r) => r.provider)));
        const providers = Object.fromEntries(
          [...ids].map((id) => {
            const p = byId.get(id);
            return [
              id,
              {
                health: healthOf(p, recent.windowSeconds),
                errors: p?.errorsByReason ?? {},
                p50Ms: p?.p50Ms ?? null,
                p99Ms: p?.p99Ms ?? null,
              },
            ];
          }),
        );
        return { data: { windowSeconds: recent.windowSeconds, models, providers } };
      },
      { auth: 'ADMIN', detail: hide },
    );
}
