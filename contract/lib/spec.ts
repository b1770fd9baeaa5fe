import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';
import { env } from './env';
import { call } from './http';
import { applySpecDeltas } from './reference-deltas';

/** An OpenAPI document, loosely typed: the suite reads paths, operations and components. */
export type OpenApiDoc = { paths: Record<string, Record<string, Operation>>; components?: Record<string, unknown> };

/** One operation of a document. */
export interface Operation {
  operationId?: string;
  parameters?: { name: string; in: string; required?: boolean; schema?: JsonSchema }[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
  responses?: Record<string, { content?: Record<string, { schema?: JsonSchema }> }>;
}

/** A JSON Schema node as the documents write them. */
export type JsonSchema = Record<string, unknown>;

/**
 * OpenAPI 3.0's `nullable: true` as JSON Schema (a `null` type, or an `anyOf` with null), so one
 * validator reads 3.0 documents (the reference) and 3.1 ones (svc's own) alike.
 */
export function toJsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toJsonSchema);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) out[k] = toJsonSchema(v);
  for (const [flag, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (out[flag] === true) [out[flag], out[bound]] = [out[bound], undefined];
    else if (out[flag] === false) delete out[flag];
    if (out[bound] === undefined) delete out[bound];
  }
  if (out.nullable === true) {
    delete out.nullable;
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    else return { anyOf: [{ ...out }, { type: 'null' }] };
    if (Array.isArray(out.enum)) out.enum = [...out.enum, null];
  }
  return out;
}

/** Response validators of one document, by operation id and status. */
export class Validators {
  private readonly ajv = new Ajv({ strict: false, allErrors: false, validateFormats: true });
  private readonly cache = new Map<string, ValidateFunction | null>();
  readonly byId = new Map<string, { path: string; method: string; op: Operation }>();

  constructor(readonly doc: OpenApiDoc) {
    addFormats(this.ajv);
    // The reference writes `format: integer` beside `type: integer`, a format ajv does not
    // know: the type checks it, and ajv no longer warns once per schema compiled.
    this.ajv.addFormat('integer', true);
    for (const [path, ops] of Object.entries(doc.paths ?? {}))
      for (const [method, op] of Object.entries(ops)) if (op?.operationId) this.byId.set(op.operationId, { path, method, op });
  }

  /** The validator of an operation's JSON response with this status; null when the document gives no schema. */
  response(operationId: string, status: number): ValidateFunction | null {
    const key = `${operationId} ${status}`;
    if (this.cache.has(key)) return this.cache.get(key)!;
    const found = this.byId.get(operationId);
    const schema = found?.op.responses?.[String(status)]?.content?.['application/json']?.schema;
    const fn = schema ? this.ajv.compile({ ...(schema as object), components: this.doc.components }) : null;
    this.cache.set(key, fn);
    return fn;
  }

  /** The JSON request body schema of an operation, with `$ref`s of the document resolved one level deep. */
  requestBody(operationId: string): JsonSchema | null {
    const schema = this.byId.get(operationId)?.op.requestBody?.content?.['application/json']?.schema;
    return schema ? this.deref(schema) : null;
  }

  /** Follows a `#/components/...` reference. */
  deref(schema: JsonSchema): JsonSchema {
    const ref = schema.$ref;
    if (typeof ref !== 'string' || !ref.startsWith('#/')) return schema;
    let node: unknown = this.doc;
    for (const part of ref.slice(2).split('/'))
      node = (node as Record<string, unknown>)?.[part.replaceAll('~1', '/').replaceAll('~0', '~')];
    return (node as JsonSchema) ?? schema;
  }
}

/** Errors of a validation as one line: path and message each. */
export const errorsOf = (fn: ValidateFunction) => (fn.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`).join('; ');

/** svc's own published description (`/openapi.yaml` of the deployment). */
export async function ownDescription(): Promise<Validators> {
  const a = await call('/openapi.yaml', { key: null });
  if (a.status !== 200) throw new Error(`GET /openapi.yaml: HTTP ${a.status}`);
  return new Validators(toJsonSchema(parse(a.text)) as OpenApiDoc);
}

/** The reference description given with `--reference <file>` with the spec's deltas applied (lib/reference-deltas.ts), or null. */
export async function referenceDescription(): Promise<Validators | null> {
  if (!env.reference) return null;
  return new Validators(toJsonSchema(applySpecDeltas(parse(await Bun.file(env.reference).text()))) as OpenApiDoc);
}
