import { Elysia } from 'elysia';
import { ACCESS_EXTENSION } from '../http/openapi-fixups';
import type { Access } from './auth';

/**
 * Route options composed from the stage plugins' own options, in the order Elysia applies
 * them (so their hooks run in pipeline order). Typed as `{}`: Elysia 1.4 applies nested
 * macro options at run time but its types do not know them.
 */
export function composeStages(options: Record<string, unknown>): {} {
  return options;
}

/**
 * The authentication stage for `access`, which also writes the Access into the route's OpenAPI
 * `detail`: the published description declares the route's 401 and 403 from it
 * (declareClientErrors in src/http/openapi-fixups.ts), so no route lists them by hand.
 */
export const authenticateAs = (access: Access) => ({ authenticate: access, detail: { [ACCESS_EXTENSION]: access } });

/**
 * The `auth: Access` route option of account routes: authenticate, abuse guard, the
 * account-wide rate limit and the balance headers. Inference routes use `meter` instead
 * (src/gates/metered-call.ts): being an inference endpoint is being metered, so no list of
 * paths decides which routes take which stages.
 */
export const accountRoutes = new Elysia({ name: 'svc.route-options.auth' }).macro({
  auth: (access: Access) =>
    composeStages({
      refuseNul: true,
      ...authenticateAs(access),
      abuseGuard: true,
      routeRateLimit: true,
      balanceHeaders: true,
      captureBody: true,
      checkBody: true,
    }),
});
