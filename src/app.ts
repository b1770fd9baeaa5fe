import { Elysia } from 'elysia';
import type { AppDeps } from './deps';
import { pipelineStages } from './gates';
import { abuseGuardGate } from './gates/abuse-guard';
import type { WalletAuthenticator } from './auth/wallet-authenticator';
import { bodyLimit } from './gates/body-limit';
import { UploadBudget, uploadBudgetGate } from './gates/upload-budget';
import { requestIdGate } from './gates/request-id';
import { responseHeaders } from './gates/response-headers';
import { compression } from './http/compression';
import { errorHandler } from './http/error-handler';
import { openApiDocs } from './http/openapi';
import { docsPage } from './http/docs-page';
import { indexRoute } from './http/index-page';
import { healthRoutes } from './http/health';
import { metricsRoute } from './http/metrics';
import { requestLog } from './http/request-log';
import { recordSinkOf } from './request-log/sink';
import { traceGate } from './gates/trace-context';
import { modelRoutes } from './routes/models';
import { chatRoutes, type ChatRouteOptions } from './routes/chat';
import { responsesRoutes } from './routes/responses-api';
import { embeddingRoutes } from './routes/embeddings';
import { augmentRoutes } from './routes/augment';
import { imageRoutes } from './routes/images';
import { audioRoutes } from './routes/audio';
import { videoRoutes } from './routes/video';
import { audioJobRoutes } from './routes/audio-jobs';
import { keyRoutes } from './routes/keys';
import { characterRoutes } from './routes/characters';
import { rateLimitRoutes } from './routes/rate-limits';
import { billingRoutes } from './routes/billing';
import { usageAnalyticsRoutes } from './routes/usage-analytics';
import { adminAccountRoutes } from './routes/admin-accounts';
import { adminGuardrailRoutes } from './routes/admin-guardrails';
import { adminAccountListRoutes } from './routes/admin-account-list';
import { adminScratchAccountRoutes } from './routes/admin-scratch-accounts';
import { adminRequestRoutes } from './routes/admin-requests';
import { webToolsOf } from '../providers/search';
import { createWalletAuthenticator } from './auth/siwx/authenticator';
import { allowedDomains, parseWalletsConfig } from './auth/wallet-config';
import { x402Routes } from './routes/x402';
import { notOfferedRoutes } from './routes/not-offered';
import { rpcRoutes } from './routes/rpc';
import { consoleRoutes } from './routes/console';
import { exampleModelOf } from './models/example-model';

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
  const tracing = deps.observability?.tracing ?? null;
  const wallets = parseWalletsConfig(config);
  const wallet =
    extras.wallet ??
    (wallets.siwx.enabled
      ? createWalletAuthenticator({
          db: deps.storage.db,
          kv: deps.kv,
          now: deps.now,
          siwx: wallets.siwx,
          domains: () => allowedDomains(config, wallets, app.server?.port),
        })
      : undefined);
  // Validates config.search now, so a broken section stops the start, not a request.
  webToolsOf(deps);
  const stages = pipelineStages(
    deps,
    wallet,
    () => app.server?.port,
    () => app.server,
  );
  const api = new Elysia({ name: 'svc.api', prefix: config.basePath })
    .use(abuseGuardGate(deps, () => app.server)) // 3. its request-wide hooks: blocked credentials and IPs, failure counting
    .use(stages) // 2-9 per route: auth, abuse guard, rate limit, metered call, balance headers (src/gates/index.ts)
    .use(modelRoutes(deps, stages))
    .use(chatRoutes(deps, stages, extras.chat))
    .use(responsesRoutes(deps, stages, extras.chat))
    .use(embeddingRoutes(deps, stages))
    .use(imageRoutes(deps, stages))
    .use(audioRoutes(deps, stages))
    .use(augmentRoutes(deps, stages))
    .use(videoRoutes(deps, stages))
    .use(audioJobRoutes(deps, stages))
    .use(keyRoutes(deps, stages, wallets))
    .use(characterRoutes(deps, stages))
    .use(rateLimitRoutes(deps, stages))
    .use(billingRoutes(deps, stages))
    .use(usageAnalyticsRoutes(deps, stages))
    .use(adminAccountRoutes(deps, stages))
    .use(adminAccountListRoutes(deps, stages))
    .use(adminScratchAccountRoutes(deps, stages))
    .use(adminGuardrailRoutes(deps, stages))
    .use(adminRequestRoutes(deps, stages))
    .use(x402Routes(deps, stages))
    .use(rpcRoutes(deps, stages))
    .use(notOfferedRoutes(config.basePath));

  const app: Elysia = new Elysia({ name: 'svc' })
    .use(requestIdGate) // 1. CF-RAY
    .use(tracing ? traceGate(tracing) : new Elysia()) // the trace's ids, when tracing is on (docs/tracing.md)
    .use(responseHeaders)
    .use(requestLog(deps.log, { accessLog: config.accessLog, records: recordSinkOf(deps.observability, deps, () => app.server) }))
    .use(uploadBudgetGate(new UploadBudget(config.uploadBudgetBytes), config))
    .use(errorHandler(deps.log))
    .use(bodyLimit(config))
    .use(compression())
    .use(openApiDocs(config.basePath, (request) => app.handle(request), exampleModelOf(deps.models)))
    .use(docsPage(config.basePath))
    .use(healthRoutes(deps))
    .use(indexRoute(config.basePath))
    .use(metricsRoute({ enabled: config.metrics, token: config.metricsToken }))
    .use(consoleRoutes(deps, stages)) // the operator console at /console (docs/console.md)
    .use(api) as unknown as Elysia;
  return app;
}

/** The composed app type. */
export type App = ReturnType<typeof createApp>;
