/** A JSON value of the OpenAPI document, walked generically. */
type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'];

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

const CLIENT_ERRORS: Record<string, Json> = {
  BadRequest: { description: 'Invalid parameters: `error` names the field, `details` lists each problem' },
  Unauthorized: { description: 'Missing, invalid, expired or deleted credentials, or a key without the scope this route needs' },
  TooManyRequests: { description: 'Rate limited, or blocked by the abuse guard after repeated failures (see Retry-After)' },
};

/**
 * Gives every operation that declares no 4XX response the ones it can answer: 400 when it
 * takes parameters or a body, 401 when it requires credentials, and 429 (every route is
 * behind the abuse guard). The bodies are the `{ error, details }` envelope.
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
      if (Object.keys(declared).some((code) => code.startsWith('4'))) continue;
      const params = [...((item.parameters as unknown[]) ?? []), ...((op.parameters as unknown[]) ?? [])];
      if (params.length > 0 || op.requestBody) declared['400'] = ref('BadRequest');
      const security = (op.security as Json[] | undefined) ?? globalSecurity;
      // `{}` among the alternatives means credentials are optional.
      if (security.length > 0 && !security.some((s) => Object.keys(s).length === 0)) declared['401'] = ref('Unauthorized');
      declared['429'] = ref('TooManyRequests');
    }
  }
}
