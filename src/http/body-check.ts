import { Kind, Type, type TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import type { ValidationIssue } from './validation-message';

/** A compiled check of a body as it arrives, and the issues of one that fails it. */
export interface BodyCheck {
  Check(value: unknown): boolean;
  Errors(value: unknown): Iterable<ValidationIssue>;
}

/** Kinds whose values are not plain JSON (multipart files) or that point elsewhere (references): no pre-check for them. */
const UNCHECKED_KINDS = new Set(['File', 'Files', 'Ref', 'This', 'Import']);

/**
 * The body schema as Elysia's validation applies it to a body before normalizing it, or null
 * when the schema holds a kind this does not follow. Elysia first fills defaults and copies the
 * body onto the schema (dropping unknown members of closed objects), then checks the copy; so
 * here a closed object admits unknown members and a member with a default is not required.
 * Every body this refuses, Elysia's validation refuses too, with the same problems (the copy
 * also turned a string or number sent for an object into an object, `"x"` into `{"0":"x"}`,
 * which sometimes passed; that is refused here).
 */
export function asArrivedSchema(schema: TSchema): TSchema | null {
  if (!schema || typeof schema !== 'object') return schema;
  if (UNCHECKED_KINDS.has(schema[Kind] as string) || '$ref' in schema) return null;
  // The same check without testing every key against a pattern.
  if (isAnyObject(schema)) return Type.Object({}, schema.description === undefined ? {} : { description: schema.description });
  const out: Record<string | symbol, unknown> = { ...schema };
  if (out.additionalProperties === false) delete out.additionalProperties;
  const properties = schema.properties as Record<string, TSchema> | undefined;
  if (properties) {
    const mapped: Record<string, TSchema> = {};
    for (const [key, sub] of Object.entries(properties)) {
      const lenient = asArrivedSchema(sub);
      if (lenient === null) return null;
      mapped[key] = lenient;
    }
    out.properties = mapped;
    if (Array.isArray(schema.required))
      out.required = (schema.required as string[]).filter((key) => properties[key]?.default === undefined);
  }
  for (const member of ['items', 'additionalProperties', 'not'] as const) {
    const sub = schema[member];
    if (sub && typeof sub === 'object' && !Array.isArray(sub)) {
      const lenient = asArrivedSchema(sub as TSchema);
      if (lenient === null) return null;
      out[member] = lenient;
    }
  }
  for (const list of ['anyOf', 'oneOf', 'allOf', 'items', 'prefixItems'] as const) {
    const subs = schema[list];
    if (!Array.isArray(subs)) continue;
    const mapped = subs.map((s: TSchema) => asArrivedSchema(s));
    if (mapped.includes(null)) return null;
    out[list] = mapped;
  }
  if (schema.patternProperties) {
    const mapped: Record<string, TSchema> = {};
    for (const [pattern, sub] of Object.entries(schema.patternProperties as Record<string, TSchema>)) {
      const lenient = asArrivedSchema(sub);
      if (lenient === null) return null;
      mapped[pattern] = lenient;
    }
    out.patternProperties = mapped;
  }
  return out as unknown as TSchema;
}

/** A record of anything under any key (`t.Record(t.String(), t.Unknown())`): any object. */
function isAnyObject(schema: TSchema): boolean {
  if (schema[Kind] !== 'Record') return false;
  const patterns = Object.entries((schema.patternProperties ?? {}) as Record<string, TSchema>);
  return patterns.length === 1 && patterns[0]![0] === '^(.*)$' && ['Unknown', 'Any'].includes(patterns[0]![1][Kind] as string);
}

const compiled = new WeakMap<object, BodyCheck | null>();

/**
 * The compiled check of a route's body as it arrives (asArrivedSchema), or null for a schema
 * it does not cover (files, references, not a TypeBox object). Compiled once per schema.
 */
export function bodyCheckOf(schema: unknown): BodyCheck | null {
  if (!schema || typeof schema !== 'object' || (schema as TSchema)[Kind] !== 'Object') return null;
  if (compiled.has(schema)) return compiled.get(schema)!;
  const lenient = asArrivedSchema(schema as TSchema);
  let check: TypeCheck<TSchema> | null = null;
  try {
    check = lenient && TypeCompiler.Compile(lenient);
  } catch {
    check = null; // a kind the compiler does not know: Elysia's own validation stays the only one
  }
  const found = check && {
    Check: (value: unknown) => check.Check(value),
    Errors: (value: unknown) => check.Errors(value) as Iterable<ValidationIssue>,
  };
  compiled.set(schema, found);
  return found;
}
