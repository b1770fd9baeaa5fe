import { Elysia } from 'elysia';
import type { AppDeps } from '../deps';
import { abuseGuardGate, type ServerLike } from './abuse-guard';
import type { CallContext } from '../pipeline/metered-call';
import type { WalletAuthenticator } from '../auth/wallet-authenticator';
import { authGate } from './auth';
import { consoleSessions, sessionKeyResolver } from '../console/session';
import { balanceHeadersGate } from './balance-headers';
import { bodyCaptureGate } from './body-capture';
import { bodyCheckGate } from './body-check';
import { bodyPolicyOf } from '../request-log/bodies';
import { observabilityConfigOf } from '../request-log/config';
import { meteredCallGate } from './metered-call';
import { nulGuardGate } from './nul-guard';
import { accountRoutes } from './route-options';
import { routeRateLimitGate } from './route-rate-limit';
import { x402PaymentGate } from './x402-payment';

/**
 * The per-route pipeline stages (DESIGN "The request pipeline", 2 to 9), one named plugin
 * each, in the order their hooks run. Route families `.use()` this to get the `auth` and
 * `meter` route options that compose them.
 */
export function pipelineStages(
  deps: AppDeps,
  wallet: WalletAuthenticator | undefined,
  listenPort: () => number | undefined = () => undefined,
  /** Bun's server once listening (null through `app.handle`): client addresses and per-request idle timeouts. */
  serverOf: () => (ServerLike & CallContext['server']) | null = () => null,
) {
  return new Elysia({ name: 'svc.stages' })
    .use(nulGuardGate) // account routes: no NUL in stored text
    .use(x402PaymentGate(deps, listenPort)) // 2. metered routes: an x402 payment for the call, when payments are configured
    .use(authGate({ keys: deps.keys, now: deps.now, wallet, session: sessionKeyResolver(consoleSessions(deps)) })) // 2. bearer key, console cookie or SIGN-IN-WITH-X
    .use(abuseGuardGate(deps, serverOf)) // 3. blocked credentials, IPs and accounts
    .use(bodyCaptureGate(bodyPolicyOf(observabilityConfigOf(deps.config).requestLog.bodies))) // the bodies the operator captures, for the request log
    .use(routeRateLimitGate(deps.limits)) // 4. account routes; inference is admitted by the meter
    .use(meteredCallGate({ models: deps.models, meter: deps.meter, router: deps.providers.router, log: deps.log }, serverOf)) // 5-8
    .use(balanceHeadersGate(deps.meter)) // 9. account routes; inference gets them from its reservation
    .use(bodyCheckGate) // last before validation: a body that fails its schema, refused before Elysia copies it
    .use(accountRoutes);
}

/** The stages plugin; route families `.use()` it for the `auth` and `meter` route options. */
export type Stages = ReturnType<typeof pipelineStages>;
