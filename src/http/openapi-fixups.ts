/** A JSON value of the OpenAPI document, walked generically. */
type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'];
/**
 * The methods whose requests carry a body. A GET or HEAD that declares a Content-Length over
 * the limit is refused with 413 too, but no client of these operations sends one: not declared.
 */
const BODY_METHODS = new Set(['put', 'post', 'delete', 'patch']);

/**
 * OpenAPI 3.1 has no `nullable` (it is JSON Schema: `type: [T, "null"]`), but the schema
 * generator still writes it next to the 3.1 form. Removes it, folding it into `type` or an
 * `anyOf` with null where the 3.1 form is missing. Mutates `node`.
 */
export function dropNullable(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(dropNullable);
  if (!isObject(node)) return;
  if ('nullable' in node && typeof node.nullable === 'boolean') {
    const nullable = node.nullable;
    delete node.nullable;
    if (nullable && typeof node.type === 'string') node.type = [node.type, 'null'];
    else if (nullable && !Array.isArray(node.type)) {
      const copy = { ...node };
      for (const key of Object.keys(node)) delete node[key];
      node.anyOf = [copy, { type: 'null' }];
    }
  }
  for (const value of Object.values(node)) dropNullable(value);
}

/**
 * The OpenAPI extension the authentication stage (authenticateAs in src/gates/route-options.ts)
 * writes into a route's `detail`: its Access, from which the published description declares
 * its 401 and 403.
 */
export const ACCESS_EXTENSION = 'x-svc-access';

const CLIENT_ERRORS: Record<string, Json> = {
  BadRequest: { description: 'Invalid parameters: `error` names the field, `details` lists each problem' },
  Unauthorized: { description: 'Missing, malformed, invalid, expired or deleted credentials' },
  Forbidden: {
    description:
      'Valid credentials that may not call this route: an INFERENCE key on an ADMIN route, or an ADMIN key of an account other than the operator’s on an operator route',
  },
  RequestTimeout: { description: 'The body did not arrive in full within the deployment’s bodyTimeoutMs' },
  PayloadTooLarge: { description: 'The body is over the deployment’s maxBodyBytes' },
  UnsupportedMediaType: {
    description: 'The body is declared as something other than JSON (text/plain, XML, a form); `error` names its type',
  },
  TooManyRequests: { description: 'Rate limited, or blocked by the abuse guard after repeated failures (see Retry-After)' },
};

/** The refusals of the authentication stage by Access: every credential presented is checked, and only ADMIN keys pass the ADMIN and OPERATOR routes. */
const AUTH_REFUSALS: Record<string, string[]> = {
  OPTIONAL: ['401'],
  INFERENCE: ['401'],
  ADMIN: ['401', '403'],
  OPERATOR: ['401', '403'],
};
const REFUSAL_NAMES: Record<string, string> = { '401': 'Unauthorized', '403': 'Forbidden' };

/**
 * Declares the client errors every operation can answer, as `{ error, details }` envelopes:
 * 400 when it takes parameters or a body; 408 and 413 when its method carries a body (the
 * body-limit gate, src/gates/body-limit.ts, bounds every body svc reads, declared or not); 415
 * when the body is JSON only (src/http/json-content-type.ts); 429 everywhere (every route
 * is behind the abuse guard), and the 401/403 of its route's Access (`x-svc-access`, which the
 * `auth` and `meter` route options set). Statuses a route declares itself are kept. An operation
 * without the extension that declares no 4XX gets 401 when its `security` requires credentials.
 */
export function declareClientErrors(doc: Json): void {
  const components = (doc.components ??= {}) as Json;
  const schemas = (components.schemas ??= {}) as Json;
  schemas.ErrorBody ??= {
    type: 'object',
    required: ['error'],
    properties: { error: { type: 'string' }, details: { type: 'object', additionalProperties: true } },
  };
  const responses = (components.responses ??= {}) as Json;
  for (const [name, response] of Object.entries(CLIENT_ERRORS))
    responses[name] ??= { ...response, content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } } };
  const ref = (name: string) => ({ $ref: `#/components/responses/${name}` });
  const globalSecurity = (doc.security as Json[] | undefined) ?? [];
  for (const item of Object.values((doc.paths ?? {}) as Json)) {
    if (!isObject(item)) continue;
    for (const method of METHODS) {
      const op = item[method];
      if (!isObject(op)) continue;
      const declared = (op.responses ??= {}) as Json;
      const access = op[ACCESS_EXTENSION];
      const handDeclared4xx = Object.keys(declared).some((code) => code.startsWith('4'));
      const params = [...((item.parameters as unknown[]) ?? []), ...((op.parameters as unknown[]) ?? [])];
      const body = isObject(op.requestBody) && isObject(op.requestBody.content) ? Object.keys(op.requestBody.content) : [];
      if (params.length > 0 || op.requestBody) declared['400'] ??= ref('BadRequest');
      if (BODY_METHODS.has(method)) {
        declared['408'] ??= ref('RequestTimeout');
        declared['413'] ??= ref('PayloadTooLarge');
      }
      if (body.length === 1 && body[0] === 'application/json') declared['415'] ??= ref('UnsupportedMediaType');
      const security = (op.security as Json[] | undefined) ?? globalSecurity;
      // `{}` among the alternatives means credentials are optional.
      const required = security.length > 0 && !security.some((s) => Object.keys(s).length === 0);
      const refusals = typeof access === 'string' ? (AUTH_REFUSALS[access] ?? []) : required && !handDeclared4xx ? ['401'] : [];
      for (const code of refusals) declared[code] ??= ref(REFUSAL_NAMES[code]!);
      declared['429'] ??= ref('TooManyRequests');
    }
  }
}

/**
 * The docs page pre-fills "Try it out" with a request body's media-type `example`, else with
 * values made up from the schema (`"model": "string"`, a 404 on the first click). Copies the
 * first of a body schema's `examples` (set by withExample, openapi-example.ts) to each JSON
 * media type of its operation, its `model` through `exampleModel` (a model this deployment
 * serves); and a parameter's schema example to the parameter (the page pre-fills those from
 * `example` too). Mutates `doc`.
 */
export function exampleBodies(doc: Json, exampleModel: (id: string) => string = (id) => id): void {
  const schemas = (isObject(doc.components) && isObject(doc.components.schemas) ? doc.components.schemas : {}) as Json;
  const resolve = (schema: unknown): unknown =>
    isObject(schema) && typeof schema.$ref === 'string' ? schemas[schema.$ref.replace('#/components/schemas/', '')] : schema;
  for (const item of Object.values((doc.paths ?? {}) as Json)) {
    if (!isObject(item)) continue;
    for (const method of METHODS) {
      const op = item[method];
      if (!isObject(op)) continue;
      for (const param of Array.isArray(op.parameters) ? op.parameters : [])
        if (isObject(param) && isObject(param.schema) && Array.isArray(param.schema.examples) && !('example' in param))
          param.example = param.schema.examples[0];
      if (!isObject(op.requestBody) || !isObject(op.requestBody.content)) continue;
      for (const [type, media] of Object.entries(op.requestBody.content)) {
        if (!type.includes('json') || !isObject(media) || 'example' in media) continue;
        const schema = resolve(media.schema);
        if (!isObject(schema) || !Array.isArray(schema.examples) || schema.examples.length === 0) continue;
        const example: unknown = structuredClone(schema.examples[0]);
        if (isObject(example) && typeof example.model === 'string') example.model = exampleModel(example.model);
        media.example = example;
      }
    }
  }
}
