import { Type as T, type Static } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { badRequest, invalidField, type ServiceError } from '../http/errors';
import { describeIssue, issuePath, resolveIssue } from '../http/validation-message';
import { JSON_SHAPE_LIMITS } from '../http/json-shape';
import { loneSurrogateProblem } from '../http/well-formed';

/** Calls in one batch at most (API-NOTES 11). */
export const MAX_BATCH = 100;

/** One JSON-RPC 2.0 call as the proxy accepts it (a notification, without `id`, has no answer to relay). */
export const RpcCallSchema = T.Object(
  {
    jsonrpc: T.Literal('2.0'),
    method: T.String({ minLength: 1, maxLength: 100 }),
    params: T.Optional(T.Union([T.Array(T.Unknown()), T.Record(T.String(), T.Unknown())])),
    id: T.Union([T.Integer({ minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER }), T.String({ maxLength: 255 })]),
  },
  { additionalProperties: false },
);

/** One JSON-RPC call. */
export type RpcCall = Static<typeof RpcCallSchema>;

/** The request body: one call or a batch (documented in the OpenAPI; parsed by `parseRpcBody`). */
export const RpcBodySchema = T.Union([RpcCallSchema, T.Array(RpcCallSchema, { minItems: 1, maxItems: MAX_BATCH })]);

const checkCall = TypeCompiler.Compile(RpcCallSchema);

/** A validated request: its calls in order, whether it was a batch, and its text as sent (forwarded unchanged). */
export interface RpcRequest {
  batch: boolean;
  calls: RpcCall[];
  text: string;
}

/** The key an id is matched by: 1 and "1" are different ids. */
export const idKey = (id: unknown): string => (typeof id === 'string' ? `s${id}` : `n${String(id)}`);

/** The first problem of one call as a 400 naming its field (`3.method`), or null. */
function callProblem(value: unknown, at: (string | number)[]): ServiceError | null {
  if (checkCall.Check(value)) return null;
  const first = checkCall.Errors(value).First();
  if (!first) return null;
  const issue = resolveIssue(first);
  const reason = issue.path === '/jsonrpc' ? 'must be "2.0"' : describeIssue(issue);
  return invalidField([...at, ...issuePath(issue)], reason);
}

/**
 * Parses and checks a request body: JSON, one call or a batch of 1 to 100, each call a
 * JSON-RPC 2.0 object with a method and an id, no id twice in a batch. Throws the 400 naming
 * the field; the text is kept to be forwarded as the client wrote it.
 */
export function parseRpcBody(text: string): RpcRequest {
  if (text.trim() === '')
    throw badRequest('body: is empty; send a JSON-RPC 2.0 object or a batch (array) of them', [{ path: ['body'], message: 'is empty' }]);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badRequest('body: is not valid JSON', [{ path: ['body'], message: 'is not valid JSON' }]);
  }
  // The text goes to the node as sent: a lone surrogate escape in it is refused here, not there.
  const surrogate = loneSurrogateProblem(text, value, JSON_SHAPE_LIMITS.maxDepth);
  if (surrogate) throw surrogate;
  if (!Array.isArray(value)) {
    if (value === null || typeof value !== 'object')
      throw badRequest('body: must be a JSON-RPC 2.0 object or an array of them', [
        { path: ['body'], message: 'must be an object or an array' },
      ]);
    const problem = callProblem(value, []);
    if (problem) throw problem;
    return { batch: false, calls: [value as RpcCall], text };
  }
  if (value.length === 0) throw badRequest('body: the batch is empty', [{ path: ['body'], message: 'must have at least 1 item' }]);
  if (value.length > MAX_BATCH)
    throw badRequest(`body: a batch holds at most ${MAX_BATCH} calls; this one has ${value.length}`, [
      { path: ['body'], message: `must have at most ${MAX_BATCH} items` },
    ]);
  const seen = new Set<string>();
  for (const [i, item] of value.entries()) {
    const problem = callProblem(item, [i]);
    if (problem) throw problem;
    const key = idKey((item as RpcCall).id);
    // Answers are matched to calls by id: a repeated id could not be told apart.
    if (seen.has(key)) throw invalidField([i, 'id'], 'repeats the id of an earlier call in the batch; ids must be unique');
    seen.add(key);
  }
  return { batch: true, calls: value as RpcCall[], text };
}
