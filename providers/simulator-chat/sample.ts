import { generateSync } from 'json-schema-faker';

/** A JSON Schema as clients send it in `tools[].function.parameters` or `response_format.json_schema.schema`. */
export type JsonSchema = Record<string, unknown> | boolean;

/** Most characters of a sampled string and items of a sampled array: tool arguments stay readable. */
const MAX_STRING = 24;
const MAX_ITEMS = 3;

/**
 * An instance of `schema`, deterministic for a `seed`, made by json-schema-faker (every
 * keyword it knows is honoured: required, enums, bounds, patterns, formats, $defs/$ref,
 * allOf/anyOf/oneOf). Schema `default`s and `examples` are used when given, so a tool's
 * own example arguments come back. Optional properties are filled too, as a model that
 * uses every parameter it is offered would. An unusable schema gives `{}`.
 */
export function sampleOf(schema: JsonSchema | undefined, seed: number): unknown {
  if (schema === undefined || schema === true) return {};
  if (schema === false) return null;
  try {
    return generateSync(schema as never, {
      seed,
      useDefaultValue: true,
      useExamplesValue: true,
      alwaysFakeOptionals: true,
      maxLength: MAX_STRING,
      maxItems: MAX_ITEMS,
      maxDepth: 6,
      failOnInvalidTypes: false,
      defaultInvalidTypeProduct: null,
    });
  } catch {
    return {};
  }
}

/** A 31-bit seed from text (FNV-1a), so the same request gets the same sample. */
export function seedOf(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0) & 0x7fffffff;
}
