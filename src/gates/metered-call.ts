import { Elysia } from 'elysia';
import { MeteredCall, type MeteredCallDeps } from '../pipeline/metered-call';
import { acceptedTypes, ModelCall, type MeterSpec } from '../pipeline/model-call';
import { requestContext } from './request-id';
import { composeStages } from './route-options';

/**
 * Stages 5 to 8 of inference routes, as route options that authenticate (any key, or a
 * signed-in wallet), run the abuse guard and then, after body validation, hand the handler
 * its `call`:
 * - `meter: MeterSpec`: the model the body names, resolved for the route's model types, as a
 *   `ModelCall` that reserves, routes, sets the model and balance headers and settles once;
 * - `meterWithoutModel: true`: a `MeteredCall` priced by its line items alone (RPC credits,
 *   augment calls), admitted by the route's account-wide limit.
 */
export function meteredCallGate(deps: MeteredCallDeps) {
  const inference = () => composeStages({ authenticate: 'INFERENCE', abuseGuard: true });
  return new Elysia({ name: 'svc.gate.metered-call' }).use(requestContext).macro({
    meter: (spec: MeterSpec) => {
      const types = acceptedTypes(spec);
      return {
        ...inference(),
        resolve: function openModelCall({ body, svc, request, path, set, server }) {
          // The route's body schema requires `model` (a string); validation has run.
          const name = (body as { model: string }).model;
          return { call: ModelCall.forModel(deps, types, name, { svc, request, path, set, server }) };
        },
      };
    },
    meterWithoutModel: {
      ...inference(),
      resolve: function openMeteredCall({ svc, request, path, set, server }) {
        return { call: new MeteredCall(deps, { svc, request, path, set, server }) };
      },
    },
  });
}
