import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';
import { applySpecDeltas } from '../../contract/lib/reference-deltas';
import { toJsonSchema } from '../../contract/lib/spec';

/** The reference OpenAPI document every served body is checked against. */
export const REFERENCE_PATH = new URL('../../contract/reference/openapi-20260709.yaml', import.meta.url).pathname;

/**
 * The reference document as svc reads it, with the spec's three deltas. The spec's naming note puts the neutral word `svc`
 * wherever an identifier carries the service's own name; the document already does that for
 * `svc_parameters` and the `x-svc-*` headers, and this does it for the one value it missed,
 * `owned_by: venice.ai` of ModelResponse.
 */
async function loadReference(): Promise<Record<string, unknown>> {
  return toJsonSchema(applySpecDeltas(parse(await Bun.file(REFERENCE_PATH).text()))) as Record<string, unknown>;
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
