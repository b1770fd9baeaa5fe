import { Kind, type TObject, type TSchema } from '@sinclair/typebox';
import { Elysia } from 'elysia';
import { MeteredCall, type CallContext, type MeteredCallDeps } from '../pipeline/metered-call';
import { acceptedTypes, ModelCall, type MeterSpec } from '../pipeline/model-call';
import { refuseMisTypedFields } from '../http/mis-typed-fields';
import { requestContext } from './request-id';
import { authenticateAs, composeStages } from './route-options';
import type { PayPerCall } from './x402-payment';

/** Whether a route's `body` option is a TypeBox object schema. */
const isObjectSchema = (schema: unknown): schema is TObject => (schema as TSchema | undefined)?.[Kind] === 'Object';

/**
 * Stages 5 to 8 of inference routes, as route options that authenticate (any key, or a
 * signed-in wallet), run the abuse guard and then, after body validation, hand the handler
 * its `call`:
 * - `meter: MeterSpec`: the model the body names, resolved for the route's model types, as a
 *   `ModelCall` that reserves, routes, sets the model and balance headers and settles once;
 * - `meterWithoutModel: true`: a `MeteredCall` priced by its line items alone (RPC credits,
 *   augment calls), admitted by the route's account-wide limit.
 */
export function meteredCallGate(deps: MeteredCallDeps, serverOf: () => CallContext['server'] = () => null) {
  // The payment is read before authentication, which lets a caller who may pay go on without credentials.
  const inference = (payPerCall: PayPerCall) =>
    composeStages({ payPerCall, ...authenticateAs('INFERENCE'), abuseGuard: true, captureBody: true });
  return new Elysia({ name: 'svc.gate.metered-call' }).use(requestContext).macro({
    meter: (spec: MeterSpec) => {
      const types = acceptedTypes(spec);
      let guard: ReturnType<typeof refuseMisTypedFields> | null = null;
      return {
        ...inference('reservation'),
        // After authentication (so an anonymous caller learns nothing of the schema), before validation.
        introspect(route: { body?: unknown }) {
          if (isObjectSchema(route.body)) guard = refuseMisTypedFields(route.body);
        },
        transform: function refuseMisTypedBody({ body }) {
          guard?.({ body });
        },
        checkBody: true, // after the mis-typed fields, which get their own message
        // The server from `serverOf`, not Elysia's context: destructuring `server` makes Elysia
        // define a getter on every request's context.
        resolve: function openModelCall({ body, svc, request, path, set }) {
          // The route's body schema requires `model` (a string); validation has run.
          const name = (body as { model: string }).model;
          return { call: ModelCall.forModel(deps, types, name, { svc, request, path, set, server: serverOf() }) };
        },
      };
    },
    meterWithoutModel: {
      ...inference('minimum'),
      checkBody: true,
      resolve: function openMeteredCall({ svc, request, path, set }) {
        return { call: new MeteredCall(deps, { svc, request, path, set, server: serverOf() }) };
      },
    },
  });
}
