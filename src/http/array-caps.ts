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

/** The schema and the members of its unions (nested unions flattened) that accept a JSON type. */
function alternatives(schema: CappedSchema, type: 'array' | 'object'): CappedSchema[] {
  const union = [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])];
  if (union.length) return union.flatMap((s) => alternatives(s, type));
  return schema.type === type || (type === 'object' && schema.properties) ? [schema] : [];
}

/** The first hit under every one of `schemas` (a union's alternatives), or null when one of them allows the value. */
function underEvery(schemas: CappedSchema[], value: unknown, path: (string | number)[]): OverLongArray | null {
  let first: OverLongArray | null = null;
  for (const schema of schemas) {
    const hit = overLongArray(schema, value, path);
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
 */
export function overLongArray(schema: CappedSchema | undefined, value: unknown, path: (string | number)[] = []): OverLongArray | null {
  if (!schema || value === null || typeof value !== 'object' || !hasCaps(schema)) return null;
  if (Array.isArray(value)) {
    const arrays = alternatives(schema, 'array');
    if (arrays.length === 0) return null;
    const maxItems = Math.max(...arrays.map((s) => s.maxItems ?? Infinity));
    if (value.length > maxItems) return { path, maxItems };
    const items = arrays.map((s) => s.items ?? {});
    if (!items.every(hasCaps)) return null;
    for (let i = 0; i < value.length; i++) {
      const hit = underEvery(items, value[i], [...path, i]);
      if (hit) return hit;
    }
    return null;
  }
  const objects = alternatives(schema, 'object');
  const record = value as Record<string, unknown>;
  let first: OverLongArray | null = null;
  for (const alt of objects) {
    let hit: OverLongArray | null = null;
    for (const [key, sub] of Object.entries(alt.properties ?? {}))
      if (Object.hasOwn(record, key) && (hit = overLongArray(sub, record[key], [...path, key]))) break;
    if (!hit) return null;
    first ??= hit;
  }
  return first;
}
