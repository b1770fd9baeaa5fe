import type { JsonSchema, Validators } from './spec';

/** The kinds of invalid field the generator makes. */
export type BadKind = 'missing' | 'wrong type' | 'enumeration' | 'range' | 'length';

/** One invalid request body, built from the request schema, and the field it breaks. */
export interface BadCase {
  /** Dotted path of the field, e.g. `temperature` or `svc_parameters.strip_thinking_response`. */
  field: string;
  what: string;
  /** What kind of breakage it is, so a sample can spread kinds across operations. */
  kind: BadKind;
  body: Record<string, unknown>;
}

const SAMPLES: [string, unknown][] = [
  ['string', 'not-valid-here'],
  ['number', 12345.5],
  ['boolean', true],
  ['object', { unexpected: true }],
  ['array', ['unexpected']],
];

/** The JSON types a schema admits, or null when any type may pass (an untyped member). */
function allowedTypes(schema: JsonSchema, v: Validators): Set<string> | null {
  const s = v.deref(schema);
  const members = (s.anyOf ?? s.oneOf) as JsonSchema[] | undefined;
  if (members) {
    const out = new Set<string>();
    for (const m of members) {
      const t = allowedTypes(m, v);
      if (!t) return null;
      for (const x of t) out.add(x);
    }
    return out;
  }
  if (s.const !== undefined) return new Set([typeof s.const === 'object' ? 'object' : typeof s.const]);
  const type = s.type;
  if (typeof type === 'string') return new Set(type === 'integer' ? ['number'] : [type]);
  if (Array.isArray(type)) return new Set(type.map((t) => (t === 'integer' ? 'number' : String(t))));
  return null;
}

/** The literal values an enum-like schema admits (enum, or a union of consts), or null. */
function literals(schema: JsonSchema, v: Validators): unknown[] | null {
  const s = v.deref(schema);
  if (Array.isArray(s.enum)) return s.enum;
  const members = (s.anyOf ?? s.oneOf) as JsonSchema[] | undefined;
  if (members?.length && members.every((m) => v.deref(m).const !== undefined)) return members.map((m) => v.deref(m).const);
  return null;
}

/** Invalid values for one field, each with what makes it invalid and its kind. */
function invalidValues(schema: JsonSchema, v: Validators, valid: unknown): [string, unknown, BadKind][] {
  const s = v.deref(schema);
  const out: [string, unknown, BadKind][] = [];
  const types = allowedTypes(s, v);
  if (types) {
    const wrong = SAMPLES.find(([t]) => !types.has(t));
    if (wrong) out.push([`a ${wrong[0]} where ${[...types].join(' or ')} is expected`, wrong[1], 'wrong type']);
  }
  const values = literals(s, v);
  if (values?.every((x) => typeof x === 'string')) out.push(['a value outside its enumeration', 'no-such-option-value', 'enumeration']);
  if (s.type === 'integer' || s.type === 'number') {
    if (typeof s.minimum === 'number') out.push([`below its minimum ${s.minimum}`, s.minimum - 1, 'range']);
    if (typeof s.exclusiveMinimum === 'number') out.push([`at its exclusive minimum ${s.exclusiveMinimum}`, s.exclusiveMinimum, 'range']);
    if (typeof s.maximum === 'number') out.push([`above its maximum ${s.maximum}`, s.maximum + 1, 'range']);
  }
  if (s.type === 'string' && !values) {
    if (typeof s.maxLength === 'number' && s.maxLength <= 100_000)
      out.push([`longer than ${s.maxLength}`, 'x'.repeat(s.maxLength + 1), 'length']);
    if (typeof s.minLength === 'number' && s.minLength > 0) out.push(['an empty string', '', 'length']);
  }
  if (s.type === 'array') {
    if (typeof s.minItems === 'number' && s.minItems > 0) out.push(['an empty array', [], 'length']);
    if (typeof s.maxItems === 'number' && Array.isArray(valid) && valid.length > 0 && s.maxItems <= 5000)
      out.push([`more than ${s.maxItems} items`, Array.from({ length: s.maxItems + 1 }, () => valid[0]), 'length']);
  }
  return out;
}

/**
 * Invalid variants of `valid`, one broken field each: every required field missing, and for
 * each property (and each property of its object properties, one level down) a value of a
 * wrong type, outside its enumeration, out of range, too long or too short.
 */
export function badInputs(schema: JsonSchema, valid: Record<string, unknown>, v: Validators): BadCase[] {
  const root = v.deref(schema);
  const cases: BadCase[] = [];
  for (const field of (root.required as string[] | undefined) ?? []) {
    const body = { ...valid };
    delete body[field];
    cases.push({ field, what: 'missing', kind: 'missing', body });
  }
  const properties = (root.properties ?? {}) as Record<string, JsonSchema>;
  for (const [field, prop] of Object.entries(properties)) {
    for (const [what, value, kind] of invalidValues(prop, v, valid[field]))
      cases.push({ field, what, kind, body: { ...valid, [field]: value } });
    const inner = v.deref(prop);
    if (inner.type === 'object' && inner.properties)
      for (const [sub, subProp] of Object.entries(inner.properties as Record<string, JsonSchema>))
        for (const [what, value, kind] of invalidValues(subProp, v, undefined))
          cases.push({ field: `${field}.${sub}`, what, kind, body: { ...valid, [field]: { [sub]: value } } });
  }
  return cases;
}

/**
 * The cases a multipart form can carry, where every value is text or a file: a wrong type
 * only when the wrong value is itself text (a word in a number or boolean field; a number in
 * a text field would read as valid text), and no nested objects.
 */
export function formCases(cases: BadCase[]): BadCase[] {
  const plainObject = (x: unknown) => typeof x === 'object' && x !== null && !Array.isArray(x) && !(x instanceof Blob);
  return cases.filter((c) => {
    const value = c.body[c.field.split('.')[0]!];
    if (c.field.includes('.') || plainObject(value)) return false;
    return c.kind !== 'wrong type' || typeof value === 'string';
  });
}

/** A body as multipart form data: Blobs as files, lists as repeated fields, anything else as text. */
export function toForm(body: Record<string, unknown>): FormData {
  const form = new FormData();
  const add = (key: string, value: unknown) =>
    value instanceof Blob ? form.append(key, value, 'contract.png') : form.append(key, String(value));
  for (const [key, value] of Object.entries(body))
    if (Array.isArray(value)) for (const item of value) add(key, item);
    else if (value !== undefined) add(key, value);
  return form;
}
