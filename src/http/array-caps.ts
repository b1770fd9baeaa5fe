/** The members of a JSON Schema (TypeBox) the cap walk reads. */
export interface CappedSchema {
  type?: string | string[];
  maxItems?: number;
  items?: CappedSchema;
  properties?: Record<string, CappedSchema>;
  anyOf?: CappedSchema[];
  oneOf?: CappedSchema[];
}

/** An array in a body longer than its schema allows: where, and the cap. */
export interface OverLongArray {
  path: (string | number)[];
  maxItems: number;
}

const holdsCaps = new WeakMap<CappedSchema, boolean>();

/** Whether a schema has an array with a `maxItems` anywhere below it (cached: schemas are built once). */
function hasCaps(schema: CappedSchema | undefined): boolean {
  if (!schema || typeof schema !== 'object') return false;
  const known = holdsCaps.get(schema);
  if (known !== undefined) return known;
  holdsCaps.set(schema, false); // a recursive schema ends here
  const found =
    schema.maxItems !== undefined ||
    hasCaps(schema.items) ||
    Object.values(schema.properties ?? {}).some(hasCaps) ||
    [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].some(hasCaps);
  holdsCaps.set(schema, found);
  return found;
}

const arrayAlternatives = new WeakMap<CappedSchema, CappedSchema[]>();
const objectAlternatives = new WeakMap<CappedSchema, CappedSchema[]>();

/**
 * The schema and the members of its unions (nested unions flattened) that accept a JSON type;
 * cached per schema, since the walk runs on every request.
 */
function alternatives(schema: CappedSchema, type: 'array' | 'object'): CappedSchema[] {
  const cache = type === 'array' ? arrayAlternatives : objectAlternatives;
  let found = cache.get(schema);
  if (!found) {
    const union = [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])];
    if (union.length) found = union.flatMap((s) => alternatives(s, type));
    else found = schema.type === type || (type === 'object' && schema.properties) ? [schema] : [];
    cache.set(schema, found);
  }
  return found;
}

/** An array's caps under a schema: the largest of its alternatives', and their item schemas when those have caps below. */
interface ArrayCaps {
  maxItems: number;
  /** Null when an alternative's items have no cap below (the elements need no visit). */
  items: CappedSchema[] | null;
}

const arrayCapsOf = new WeakMap<CappedSchema, ArrayCaps | null>();

function arrayCaps(schema: CappedSchema): ArrayCaps | null {
  let caps = arrayCapsOf.get(schema);
  if (caps === undefined) {
    const arrays = alternatives(schema, 'array');
    const items = arrays.map((s) => s.items ?? {});
    caps = arrays.length
      ? { maxItems: Math.max(...arrays.map((s) => s.maxItems ?? Infinity)), items: items.every(hasCaps) ? items : null }
      : null;
    arrayCapsOf.set(schema, caps);
  }
  return caps;
}

const cappedPropertiesOf = new WeakMap<CappedSchema, [string, CappedSchema][]>();

/** An object schema's properties that have caps below, in declaration order (cached: the rest are never walked). */
function cappedProperties(schema: CappedSchema): [string, CappedSchema][] {
  let props = cappedPropertiesOf.get(schema);
  if (!props) {
    props = Object.entries(schema.properties ?? {}).filter(([, sub]) => hasCaps(sub));
    cappedPropertiesOf.set(schema, props);
  }
  return props;
}

/** The first hit under every one of `schemas` (a union's alternatives), or null when one of them allows the value. */
function underEvery(schemas: CappedSchema[], value: unknown): OverLongArray | null {
  let first: OverLongArray | null = null;
  for (const schema of schemas) {
    const hit = walk(schema, value);
    if (!hit) return null;
    first ??= hit;
  }
  return first;
}

/**
 * The first array in `value` longer than every `maxItems` its schema allows there (a union's
 * array alternatives: the largest cap; one without a cap: no limit), or null. Walks only where
 * the schema has caps below, so a typical body costs a few property reads; elements are
 * visited only under an array that is within its own cap. This runs before validation:
 * TypeBox's error enumeration visits every element of an over-long array (100,000 valid
 * elements took 50 to 250 ms of CPU per request), whereas here the length alone decides.
 * `path` is prefixed to a hit's path.
 */
export function overLongArray(schema: CappedSchema | undefined, value: unknown, path?: (string | number)[]): OverLongArray | null {
  const hit = walk(schema, value);
  if (hit && path?.length) hit.path.unshift(...path);
  return hit;
}

/**
 * `overLongArray` without a path: the walk allocates nothing on a body within its caps (it
 * runs on every request), and a hit's path is built on the way back up.
 */
function walk(schema: CappedSchema | undefined, value: unknown): OverLongArray | null {
  if (!schema || value === null || typeof value !== 'object' || !hasCaps(schema)) return null;
  if (Array.isArray(value)) {
    const caps = arrayCaps(schema);
    if (!caps) return null;
    if (value.length > caps.maxItems) return { path: [], maxItems: caps.maxItems };
    if (!caps.items) return null;
    for (let i = 0; i < value.length; i++) {
      const hit = underEvery(caps.items, value[i]);
      if (hit) return (hit.path.unshift(i), hit);
    }
    return null;
  }
  const record = value as Record<string, unknown>;
  let first: OverLongArray | null = null;
  for (const alt of alternatives(schema, 'object')) {
    let hit: OverLongArray | null = null;
    for (const [key, sub] of cappedProperties(alt))
      if (Object.hasOwn(record, key) && (hit = walk(sub, record[key]))) {
        hit.path.unshift(key);
        break;
      }
    if (!hit) return null;
    first ??= hit;
  }
  return first;
}
