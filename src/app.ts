import { Elysia } from 'elysia';
import type { AppDeps } from './deps';
import { authGate, type AfterAuthStage, type WalletAuthenticator } from './gates/auth';
import { bodyLimit } from './gates/body-limit';
import { requestIdGate } from './gates/request-id';
import { responseHeaders } from './gates/response-headers';
import { compression } from './http/compression';
import { errorHandler } from './http/error-handler';
import { openApiDocs } from './http/openapi';
import { docsPage } from './http/docs-page';
import { healthRoutes } from './http/health';
import { metricsRoute } from './http/metrics';
import { requestLog } from './http/request-log';
import { modelRoutes } from './routes/models';
import { chatRoutes, type ChatRouteOptions } from './routes/chat';
import { keyRoutes } from './routes/keys';
import { characterRoutes } from './routes/characters';
import { rateLimitRoutes } from './routes/rate-limits';
import { abuseGuardGate } from './gates/abuse-guard';
import { balanceHeadersStage } from './gates/balance-headers';
import { routeRateLimitStage } from './gates/route-rate-limit';
import { billingRoutes } from './routes/billing';
import { adminAccountRoutes } from './routes/admin-accounts';
import { adminAccountListRoutes } from './routes/admin-account-list';
import { webToolsOf } from '../providers/search';
import { createWalletAuthenticator } from './auth/siwx/authenticator';
import { allowedDomains, parseWalletsConfig } from './auth/wallet-config';

/** Optional parts a later stage plugs in (wallet sign-in); absent ones are simply off. */
export interface AppExtras {
  wallet?: WalletAuthenticator;
  /** Chat route options (tests shorten the keep-alive interval). */
  chat?: ChatRouteOptions;
}

/**
 * Composes the service: the global stages (request id, errors, compression, docs) and then
 * every route family under the base path. Tests call `createApp(deps).handle(request)`.
 */
export function createApp(deps: AppDeps, extras: AppExtras = {}) {
  const { config } = deps;
  const wallets = parseWalletsConfig(config);
  const wallet =
    extras.wallet ??
    (wallets.siwx.enabled
      ? createWalletAuthenticator({
          db: deps.storage.db,
          kv: deps.kv,
          now: deps.now,
          siwx: wallets.siwx,
          domains: allowedDomains(config, wallets),
        })
      : undefined);
  // Validates config.search now, so a broken section stops the start, not a request.
  webToolsOf(deps);
  // Stages 3-4 (abuse guard, rate limit) and the balance headers run right after
  // authentication on every authenticated route; model routes are limited and metered by
  // the meter instead, against the model's own limits.
  const metered = new Set([`${config.basePath}/chat/completions`]);
  const after: AfterAuthStage[] = [];
  const abuse = abuseGuardGate(deps);
  if (abuse.stage) after.push(abuse.stage);
  after.push(routeRateLimitStage(deps.limits, metered), balanceHeadersStage(deps.meter, metered));
  const auth = authGate({ keys: deps.keys, now: deps.now, wallet, after });
  const api = new Elysia({ name: 'svc.api', prefix: config.basePath })
    .use(abuse.plugin)
    .use(modelRoutes(deps, auth))
    .use(keyRoutes(deps, auth, wallets))
    .use(chatRoutes(deps, auth, extras.chat))
    .use(characterRoutes(deps, auth))
    .use(rateLimitRoutes(deps, auth))
    .use(billingRoutes(deps, auth))
    .use(adminAccountRoutes(deps, auth))
    .use(adminAccountListRoutes(deps, auth));

  const app: Elysia = new Elysia({ name: 'svc' })
    .use(requestIdGate)
    .use(responseHeaders)
    .use(requestLog(deps.log, { accessLog: config.accessLog }))
    .use(errorHandler(deps.log))
    .use(bodyLimit(config.maxBodyBytes))
    .use(compression())
    .use(openApiDocs(config.basePath, (request) => app.handle(request)))
    .use(docsPage(config.basePath))
    .use(healthRoutes(deps))
    .use(metricsRoute({ enabled: config.metrics, token: config.metricsToken }))
    .use(api) as unknown as Elysia;
  return app;
}

/** The composed app type. */
export type App = ReturnType<typeof createApp>;
