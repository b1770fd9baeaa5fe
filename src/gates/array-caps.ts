import { Elysia } from 'elysia';
import { overLongArray, type CappedSchema } from '../http/array-caps';
import { invalidField } from '../http/errors';

/** A route as Elysia's route table lists it: enough to find its body schema. */
export interface RouteEntry {
  method: string;
  path: string;
  hooks?: { body?: unknown };
}

/**
 * Refuses, before validation, a body whose array is longer than the route's schema allows
 * (`maxItems`), with the 400 validation would give (`stop: must have at most 4 items`), so
 * no over-long array reaches TypeBox's error enumeration, which visits every element.
 * The route table is read on the first request, once every route is registered.
 */
export function arrayCapsGate(routes: () => RouteEntry[]) {
  let schemas: Map<string, CappedSchema> | undefined;
  const schemaOf = (method: string, route: string) => {
    schemas ??= new Map(
      routes()
        .filter((r) => r.hooks?.body && typeof r.hooks.body === 'object')
        .map((r) => [`${r.method} ${r.path}`, r.hooks!.body as CappedSchema]),
    );
    return schemas.get(`${method} ${route}`);
  };
  return new Elysia({ name: 'svc.gate.array-caps' }).onTransform({ as: 'global' }, function refuseOverLongArrays({ body, request, route }) {
    if (body === null || typeof body !== 'object') return;
    const hit = overLongArray(schemaOf(request.method, route), body);
    if (hit) throw invalidField(hit.path, `must have at most ${hit.maxItems} items`, 'body');
  });
}
