import { Kind, type TSchema } from '@sinclair/typebox';
import { Elysia } from 'elysia';
import { overLongArray, type CappedSchema } from '../http/array-caps';
import { bodyCheckOf, type BodyCheck } from '../http/body-check';
import { invalidField } from '../http/errors';
import { validationFailure } from '../http/error-handler';
import { refuseNonObjectBody } from '../http/mis-typed-fields';

/**
 * The `checkBody` route option (composed last by `auth`, `meter` and `strictBody`, so it runs
 * after every other transform, authentication included, and before Elysia's validation): a
 * JSON body that fails the route's schema is refused here, with the 400 validation gives,
 * before Elysia copies it onto the schema: first an array past its `maxItems`
 * (src/http/array-caps.ts), then anything else. That copy (exact-mirror, to drop unknown members)
 * walks every element and, for a union, checks and copies each alternative, and Elysia's
 * validation error then serializes the whole body: 10 to 70 ms of CPU for a 1.3 MB body of
 * 100,000 elements. The check here stops at the first wrong element, and the answer takes its
 * first 20 problems.
 */
export const bodyCheckGate = new Elysia({ name: 'svc.gate.body-check' }).macro({
  checkBody: () => {
    let schema: CappedSchema | undefined;
    let check: BodyCheck | null = null;
    return {
      introspect(route: { body?: unknown }) {
        if ((route.body as TSchema | undefined)?.[Kind] === 'Object') schema = route.body as CappedSchema;
        check = bodyCheckOf(route.body);
      },
      transform: function refuseInvalidBody({ body }) {
        if (!schema || body === undefined || body === null) return;
        // Elysia's copy made `[1,2]` or `"hi"` an object (`{"0":"h","1":"i"}`) that could pass.
        refuseNonObjectBody(body);
        // By its length alone: the check below would walk the elements, its errors every one.
        const hit = overLongArray(schema, body);
        if (hit) throw invalidField(hit.path, `must have at most ${hit.maxItems} items`, 'body');
        if (check && !check.Check(body)) throw validationFailure(check.Errors(body), 'body');
      },
    };
  },
});
