import { Elysia } from 'elysia';
import { MeteredCall, type MeteredCallDeps, type MeterSpec } from '../pipeline/metered-call';
import { requestContext } from './request-id';
import { composeStages } from './route-options';

/**
 * Stages 5 to 8 of inference routes, as the `meter: MeterSpec` route option: authenticate
 * (any key, or a signed-in wallet), the abuse guard, then, after body validation, the
 * model the body names resolved for the route's model types and handed to the handler as a
 * `MeteredCall`, which reserves, routes, sets the model and balance headers and settles
 * once (src/pipeline/metered-call.ts).
 */
export function meteredCallGate(deps: MeteredCallDeps) {
  return new Elysia({ name: 'svc.gate.metered-call' }).use(requestContext).macro({
    meter: (spec: MeterSpec) => ({
      ...composeStages({ authenticate: 'INFERENCE', abuseGuard: true }),
      resolve: function openMeteredCall({ body, svc, request, set, server }) {
        // The route's body schema requires `model` (a string); validation has run.
        const name = (body as { model: string }).model;
        return { call: MeteredCall.forModel(deps, spec, name, { svc, request, set, server }) };
      },
    }),
  });
}
