import { Value } from '@sinclair/typebox/value';

/**
 * The bad-input classes every JSON route must answer with a 4xx `{ error }` (never a 500,
 * never an empty body, never slowly): nesting depth, size, prototype keys, NUL characters,
 * lone surrogates, bodies that are not objects, long letter runs and extreme numbers. Bodies are built from the
 * route's own body schema, so a new route gets every class without writing a line.
 */

/** One hostile request body: its class, what it does, and the raw JSON text to send. */
export interface HostileBody {
  kind: 'depth' | 'size' | 'proto' | 'nul' | 'surrogate' | 'not-object' | 'letters' | 'numbers' | 'wide';
  label: string;
  text: string;
  /** For the classes no route may take (a lone surrogate): the field the 400's error must name. */
  refusedField?: string;
}

/** The members of a JSON Schema the generator reads (a TypeBox schema or an OpenAPI one). */
export interface BodySchemaLike {
  type?: string | string[];
  properties?: Record<string, BodySchemaLike>;
  required?: string[];
  anyOf?: BodySchemaLike[];
  oneOf?: BodySchemaLike[];
  items?: BodySchemaLike;
  maxItems?: number;
}

/** Options: the body size limit to probe at and past, a valid-looking base body, the depths. */
export interface HostileOptions {
  maxBodyBytes: number;
  /** Fields merged into the schema's default value (a real model id, say), so checks past validation run too. */
  base?: Record<string, unknown>;
  /** Depths of the deep bodies; the probes used 20,000 and 100,000. */
  depths?: number[];
  /** Length of the letter runs put in text fields. */
  letterRun?: number;
}

/** JSON types a schema accepts, through unions. */
function typesOf(schema: BodySchemaLike | undefined): Set<string> {
  const out = new Set<string>();
  if (!schema) return out;
  for (const t of [schema.type ?? []].flat()) out.add(t);
  for (const alt of [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) for (const t of typesOf(alt)) out.add(t);
  return out;
}

/** The schema's own default value (TypeBox `Value.Create`), or `{}` when it cannot make one. */
function defaultBody(schema: BodySchemaLike | undefined): Record<string, unknown> {
  try {
    const value = Value.Create(schema as never) as unknown;
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** `[[[ ... ]]]` or `{"a":{"a": ... }}` nested `depth` levels, as text (never built as an object). */
export function deepJson(depth: number, kind: 'array' | 'object'): string {
  return kind === 'array' ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
}

/**
 * `length` letters with no space, varied (a run of one letter is cheap for a tokenizer that
 * reuses a repeated slice's count; varied letters are the expensive case).
 */
export function letterRun(length: number): string {
  const bytes = new Uint8Array(length);
  let seed = 0x2545f491;
  for (let i = 0; i < length; i++) {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    bytes[i] = 0x61 + ((seed >>> 16) % 26);
  }
  return new TextDecoder().decode(bytes);
}

/** The body text with `field` set to the raw JSON `valueText`, on top of `base`. */
function withField(base: Record<string, unknown>, field: string, valueText: string): string {
  const rest = { ...base };
  delete rest[field];
  const head = JSON.stringify(rest).slice(0, -1);
  return `${head}${head.length > 1 ? ',' : ''}${JSON.stringify(field)}:${valueText}}`;
}

/** A JSON object of exactly `bytes` bytes: one long string member. */
function bodyOfSize(bytes: number): string {
  const shell = '{"prompt":""}';
  return `{"prompt":"${'a'.repeat(Math.max(0, bytes - shell.length))}"}`;
}

/** Every hostile body for a route whose JSON body follows `schema`. */
export function hostileBodies(schema: BodySchemaLike | undefined, opts: HostileOptions): HostileBody[] {
  const depths = opts.depths ?? [20_000, 100_000];
  const letters = letterRun(opts.letterRun ?? 1 << 20);
  const base = { ...defaultBody(schema), ...opts.base };
  const fields = Object.entries(schema?.properties ?? {});
  const out: HostileBody[] = [];
  const add = (kind: HostileBody['kind'], label: string, text: string, refusedField?: string) =>
    out.push({ kind, label, text, refusedField });

  for (const depth of depths)
    for (const shape of ['array', 'object'] as const) add('depth', `body: ${shape}s nested ${depth} deep`, deepJson(depth, shape));
  add('depth', 'body: an object whose member is nested 20,000 deep', withField(base, 'x', deepJson(20_000, 'array')));
  add('size', 'body at the size limit', bodyOfSize(opts.maxBodyBytes));
  add('size', 'body one byte over the size limit', bodyOfSize(opts.maxBodyBytes + 1));
  add('proto', 'a __proto__ member', withField(base, '__proto__', '{"polluted":true}'));
  add('proto', 'a constructor member', withField(base, 'constructor', '{"prototype":{"polluted":true}}'));
  add('proto', '__proto__ and constructor only', '{"__proto__":1,"constructor":"x","prototype":[]}');
  add('nul', 'a NUL in a member name', withField(base, 'a\u0000b', '1'));
  // Escapes written into the JSON text: JSON.parse makes them a lone surrogate in a JS string.
  // A route without a body schema may never read its body: the name is then refused or ignored.
  const member = withField(base, 'member', '1').replace('"member":', '"m\\ud800":');
  add('surrogate', 'a lone surrogate in a member name', member, schema ? 'm' : undefined);
  for (const text of ['[]', '[{}]', '1', '"text"', 'null', 'true', '""']) add('not-object', `body is ${text}`, text);

  for (const [field, fieldSchema] of fields) {
    const types = typesOf(fieldSchema);
    if (types.has('string')) {
      add('depth', `${field}: an array nested 10,000 deep`, withField(base, field, deepJson(10_000, 'array')));
      add('depth', `${field}: an object nested 100,000 deep`, withField(base, field, deepJson(100_000, 'object')));
      add('depth', `${field}: an array nested 100 deep`, withField(base, field, deepJson(100, 'array')));
      add('nul', `${field}: a NUL character`, withField(base, field, JSON.stringify('a\u0000b')));
      add('surrogate', `${field}: a lone high surrogate`, withField(base, field, '"a\\ud800b"'), field);
      add('surrogate', `${field}: a lone low surrogate`, withField(base, field, '"\\udfff"'), field);
      add('letters', `${field}: ${letters.length} letters without a space`, withField(base, field, JSON.stringify(letters)));
    }
    if (types.has('number') || types.has('integer'))
      for (const n of ['1e308', '1e999', '-1e999', '1e20', '-1', '-0', '5e-324', '"NaN"', '"Infinity"', '"1e20"'])
        add('numbers', `${field}: ${n}`, withField(base, field, n));
    if (types.has('array')) add('surrogate', `${field}: a lone surrogate in an element`, withField(base, field, '["\\ud83d"]'), field);
    if (types.has('object') || types.has('array'))
      add('proto', `${field}: holds __proto__ and constructor`, withField(base, field, '{"__proto__":{"x":1},"constructor":1}'));
  }
  return out;
}

/** The element kinds of the wide arrays: each is invalid for most array fields, and valid for some. */
const WIDE_ELEMENTS = ['1', '{}', '[]', '"x"', 'null', '{"a":1}'];

/** The array alternatives of a field's schema (itself, or the members of its unions). */
function arraysOf(schema: BodySchemaLike | undefined): BodySchemaLike[] {
  if (!schema) return [];
  const union = [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])];
  return union.length ? union.flatMap(arraysOf) : [schema.type].flat().includes('array') ? [schema] : [];
}

/**
 * Wide arrays: every array field (and the body itself) filled with up to `elements` copies of
 * each element kind, kept under about two thirds of the size limit; and each array with a
 * `maxItems` filled past it with valid items (the schema's default item), the costliest case:
 * TypeBox's error enumeration visits every element looking for more errors. The probe that
 * found it sent 100,000 elements in 1.3 MB.
 */
export function wideBodies(schema: BodySchemaLike | undefined, opts: HostileOptions & { elements?: number }): HostileBody[] {
  const base = { ...defaultBody(schema), ...opts.base };
  const budget = Math.floor(opts.maxBodyBytes * 0.65);
  const count = (element: string) => Math.min(opts.elements ?? 99_990, Math.floor(budget / (element.length + 1)));
  const wide = (element: string) => `[${Array(count(element)).fill(element).join(',')}]`;
  const out: HostileBody[] = [];
  const add = (label: string, text: string) => out.push({ kind: 'wide', label, text });
  add('body: an array of 1s', wide('1'));
  for (const [field, fieldSchema] of Object.entries(schema?.properties ?? {})) {
    const arrays = arraysOf(fieldSchema);
    if (arrays.length === 0) continue;
    for (const element of WIDE_ELEMENTS) add(`${field}: a wide array of ${element}`, withField(base, field, wide(element)));
    for (const array of arrays) {
      if (array.maxItems === undefined) continue;
      let item: string;
      try {
        item = JSON.stringify(Value.Create(array.items as never)) ?? 'null';
      } catch {
        continue;
      }
      if (count(item) > array.maxItems)
        add(`${field}: ${count(item)} valid items, past its maxItems of ${array.maxItems}`, withField(base, field, wide(item)));
    }
  }
  return out;
}
