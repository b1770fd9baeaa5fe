import { Kind, type TObject, type TSchema } from '@sinclair/typebox';
import { badRequest } from './errors';

type Shape = 'an object' | 'an array';

/** Whether a value has the shape (null passes where the schema allows it). */
const fits = (value: unknown, shape: Shape, nullable: boolean) =>
  (value === null && nullable) ||
  (shape === 'an array' ? Array.isArray(value) : typeof value === 'object' && value !== null && !Array.isArray(value));

/** The one container shape a field's schema admits (objects or arrays, maybe null), or null when it admits anything else. */
function shapeOf(schema: TSchema): { shape: Shape; nullable: boolean } | null {
  const kind = schema[Kind];
  if (kind === 'Object' || kind === 'Record') return { shape: 'an object', nullable: false };
  if (kind === 'Array') return { shape: 'an array', nullable: false };
  if (kind !== 'Union') return null;
  let found: Shape | null = null;
  let nullable = false;
  for (const member of (schema as TSchema & { anyOf: TSchema[] }).anyOf) {
    if (member[Kind] === 'Null') nullable = true;
    else {
      const s = shapeOf(member);
      if (!s || (found && found !== s.shape)) return null;
      found = s.shape;
    }
  }
  return found ? { shape: found, nullable } : null;
}

/** A 400 naming the body when it is not a JSON object (an array, a string, a number, a boolean, null). */
export function refuseNonObjectBody(body: unknown) {
  if (!fits(body, 'an object', false))
    throw badRequest('Invalid body: expected a JSON object', [{ path: ['body'], message: 'Expected an object' }]);
}

/**
 * A transform hook (before validation) that refuses a body that is not a JSON object, and a
 * top-level field whose schema takes only objects (or only arrays) when the body sends
 * something else. Elysia's default body
 * normalizer (exact-mirror) copies a string's characters into an object (`"x"` becomes
 * `{"0":"x"}`) before validating, so `reasoning: "x"` or `tools: "x"` passed validation and
 * went upstream mangled; this gives them the 400 naming the field instead.
 */
export function refuseMisTypedFields(schema: TObject) {
  const shapes = Object.entries(schema.properties)
    .map(([field, s]) => [field, shapeOf(s)] as const)
    .filter((e): e is readonly [string, { shape: Shape; nullable: boolean }] => e[1] !== null);
  return function refuseMisTypedField({ body }: { body: unknown }) {
    if (body === undefined) return;
    // The same mangling at the top: `[]` or `"x"` became an object that passed validation
    // without the route's fields, and a handler reading `model` failed with a 500.
    refuseNonObjectBody(body);
    const fields = body as Record<string, unknown>;
    for (const [field, { shape, nullable }] of shapes) {
      const value = fields[field];
      if (value === undefined || fits(value, shape, nullable)) continue;
      const message = `Expected ${shape}${nullable ? ' or null' : ''}`;
      throw badRequest(`${field}: ${message.toLowerCase()}`, [{ path: [field], message }]);
    }
  };
}
