import type { ChatRequest } from '@svc/plugin-sdk';
import type { Ajv, ValidateFunction } from 'ajv';

/** Largest schema compiled, in characters of JSON: compiling is the costly step. */
export const MAX_SCHEMA_CHARS = 64 * 1024;
const CACHE_SIZE = 256;

// One Ajv for all requests, made (and the library loaded) by the first request that asks for a
// check: a start that never sees one does not hold it in memory. Formats are not checked
// (unknown `format`s are ignored, as most upstreams' structured-output modes do), and remote
// `$ref`s are never loaded.
let ajv: Ajv | null = null;
const ajvOnce = (): Ajv =>
  (ajv ??= new (require('ajv') as typeof import('ajv')).Ajv({
    strict: false,
    allErrors: false,
    validateFormats: false,
    validateSchema: true,
  }));
const compiled = new Map<string, ValidateFunction | string>();

/** The JSON schema a request asks its answer to follow (`response_format.type = json_schema`), or null. */
export function requestedSchema(req: ChatRequest): Record<string, unknown> | null {
  const rf = req.response_format as { type?: unknown; json_schema?: { schema?: unknown } } | undefined;
  if (rf?.type !== 'json_schema') return null;
  const schema = rf.json_schema?.schema;
  return schema && typeof schema === 'object' ? (schema as Record<string, unknown>) : null;
}

/** A compiled validator for `schema`, or why it cannot be compiled; the last few hundred are kept. */
function validatorFor(schema: Record<string, unknown>): ValidateFunction | string {
  const key = JSON.stringify(schema);
  let v = compiled.get(key);
  if (v !== undefined) {
    compiled.delete(key); // re-inserted below: the Map's order is the recency order
  } else if (key.length > MAX_SCHEMA_CHARS) {
    v = `the json_schema is over ${MAX_SCHEMA_CHARS} characters, not checked`;
  } else {
    try {
      v = ajvOnce().compile(schema);
    } catch (e) {
      v = `the json_schema does not compile (${(e as Error).message})`;
    }
  }
  compiled.set(key, v);
  if (compiled.size > CACHE_SIZE) compiled.delete(compiled.keys().next().value as string);
  return v;
}

/** Why `text` is not a JSON value that fits `schema`, or null when it fits. */
export function schemaViolation(text: string, schema: Record<string, unknown>): string | null {
  const validate = validatorFor(schema);
  if (typeof validate === 'string') return validate;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return `the answer is not valid JSON (${(e as Error).message})`;
  }
  if (validate(value)) return null;
  const errors = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`);
  return `the answer does not match the requested json_schema: ${errors.join('; ')}`;
}
