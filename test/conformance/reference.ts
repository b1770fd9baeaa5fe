import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';

/** The reference OpenAPI document every served body is checked against. */
export const REFERENCE_PATH = new URL('../../../shared/reference/openapi-20260709.yaml', import.meta.url).pathname;

/**
 * The reference document as svc reads it, with the spec's three deltas. The spec's naming note puts the neutral word `svc`
 * wherever an identifier carries the service's own name; the document already does that for
 * `svc_parameters` and the `x-svc-*` headers, and this does it for the one value it missed,
 * `owned_by: venice.ai` of ModelResponse.
 */
async function loadReference(): Promise<Record<string, unknown>> {
  const doc = parse(await Bun.file(REFERENCE_PATH).text());
  doc.components.schemas.ModelResponse.properties.owned_by.enum = ['svc'];
  renameUsageUnits(doc);
  chatLogprobsAsContentList(doc);
  return openApi30ToJsonSchema(doc) as Record<string, unknown>;
}

/**
 * The reference types `choices[].logprobs` of a chat completion as one token object; the
 * spec (4.8b) makes the response the chat-completions interface's, whose `logprobs` is
 * `{ content: [token objects], refusal }`, as the openai SDK reads it. svc follows the spec:
 * the reference's token object becomes the item of `content`.
 */
function chatLogprobsAsContentList(doc: Record<string, any>): void {
  const choice = doc.paths['/chat/completions'].post.responses['200'].content['application/json'].schema.properties.choices.items;
  const token = choice.properties.logprobs;
  choice.properties.logprobs = {
    type: 'object',
    nullable: true,
    properties: { content: { type: 'array', nullable: true, items: { ...token, nullable: false } }, refusal: { nullable: true } },
    required: ['content'],
  };
}

/**
 * OpenAPI 3.0 schemas are not quite JSON Schema: `nullable: true` becomes a `null` type (or
 * an `anyOf` with null where there is no `type`), and the boolean `exclusiveMinimum` /
 * `exclusiveMaximum` of draft 4 become the numeric form ajv expects.
 */
function openApi30ToJsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(openApi30ToJsonSchema);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) out[k] = openApi30ToJsonSchema(v);
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
    else {
      const { description, example, ...rest } = out;
      return { anyOf: [rest, { type: 'null' }], ...(description ? { description } : {}) };
    }
    if (Array.isArray(out.enum)) out.enum = [...out.enum, null];
  }
  return out;
}

/**
 * Where the spec and the reference disagree the spec wins (DESIGN.md): a billing usage
 * entry's field is `unit` (spec 2.4), the reference's `units`. Every usage entry schema of
 * the document gets the spec's name.
 */
function renameUsageUnits(node: unknown): void {
  if (!node || typeof node !== 'object') return;
  const schema = node as { properties?: Record<string, unknown>; required?: string[] };
  if (schema.properties?.units && schema.properties.pricePerUnitUsd) {
    schema.properties.unit = schema.properties.units;
    delete schema.properties.units;
    schema.required = schema.required?.map((r) => (r === 'units' ? 'unit' : r));
  }
  for (const value of Object.values(node)) renameUsageUnits(value);
}

const pointer = (...segments: string[]) => segments.map((s) => s.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

/** Validators of response bodies by operation, compiled once from the reference with ajv. */
export interface ReferenceValidator {
  /** Validates `body` against the schema of `method path` for `status`; returns ajv's errors (empty when valid). */
  check(method: string, path: string, status: number, body: unknown): ErrorObject[];
  /** The status codes the reference documents for an operation. */
  statuses(method: string, path: string): string[];
}

/** Loads the reference and returns a validator over its response schemas (OpenAPI 3.0: `nullable` is honoured by ajv). */
export async function referenceValidator(): Promise<ReferenceValidator> {
  const doc = await loadReference();
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(doc, 'ref');
  const compiled = new Map<string, ValidateFunction>();
  const paths = doc.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>;
  return {
    statuses: (method, path) => Object.keys(paths[path]?.[method.toLowerCase()]?.responses ?? {}),
    check(method, path, status, body) {
      const op = paths[path]?.[method.toLowerCase()];
      if (!op) throw new Error(`the reference has no operation ${method} ${path}`);
      if (!op.responses[String(status)]) throw new Error(`the reference documents no ${status} for ${method} ${path}`);
      const ref = `ref#/${pointer('paths', path, method.toLowerCase(), 'responses', String(status), 'content', 'application/json', 'schema')}`;
      let validate = compiled.get(ref);
      if (!validate) {
        validate = ajv.compile({ $ref: ref });
        compiled.set(ref, validate);
      }
      return validate(body) ? [] : (validate.errors ?? []);
    },
  };
}
