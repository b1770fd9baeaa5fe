import type { Static, TSchema } from '@sinclair/typebox';

/**
 * Gives a request schema the example the docs page pre-fills for "Try it out" (JSON Schema
 * `examples`, copied to the request body's media type by openapi-fixups.ts): typed against the
 * schema, with a model of the default catalog, so the first click answers on a fresh start
 * (test/ops/openapi-examples.test.ts sends each one). Returns the schema itself.
 */
export function withExample<S extends TSchema>(schema: S, example: Static<S>): S {
  return Object.assign(schema, { examples: [example] });
}
