import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import Ajv, { type ErrorObject } from 'ajv';
import { startTestApp, type TestApp } from '../helpers/app';
import { referenceValidator, type ReferenceValidator } from './reference';

/**
 * Every operation svc serves from the reference, driven over HTTP: each 200 body and each
 * error body is validated with ajv against the reference OpenAPI document (with the spec's
 * two deltas, see reference.ts). An error status the reference does not document for an
 * operation is checked against the spec's error table (400 DetailedError, else StandardError).
 */
let t: TestApp;
let ref: ReferenceValidator;
let inferenceKey: string;
let inferenceKeyId: string;

beforeAll(async () => {
  [t, ref] = await Promise.all([startTestApp(), referenceValidator()]);
  const created = await (
    await t.request('/api_keys', {
      method: 'POST',
      json: { apiKeyType: 'INFERENCE', description: 'conformance', consumptionLimit: { usd: 5 } },
    })
  ).json();
  [inferenceKey, inferenceKeyId] = [created.data.apiKey, created.data.id];
  // A charge, so the usage lists have an inference line to check.
  const chat = await t.request('/chat/completions', {
    method: 'POST',
    json: { model: 'llama-3.3-70b', messages: [{ role: 'user', content: 'hello' }] },
  });
  expect(chat.status).toBe(200);
  await t.deps.meter.flush?.();
});
afterAll(() => t.close());

type Call = { method: string; path: string; query?: string; json?: unknown; key?: string | null; headers?: Record<string, string> };

const ajv = new Ajv({ strict: false });
/** The spec's error table (2.5): a 400 is a DetailedError, every other error a StandardError. */
const SPEC_ERRORS = {
  DetailedError: ajv.compile({
    type: 'object',
    properties: { error: { type: 'string' }, details: { type: 'object' } },
    required: ['error'],
  }),
  StandardError: ajv.compile({ type: 'object', properties: { error: { type: 'string' } }, required: ['error'] }),
};

/** Sends a call; `path` is the reference's path template, `concrete` the one sent. */
async function send(call: Call, concrete = call.path): Promise<{ status: number; body: unknown; headers: Headers }> {
  const res = await t.request(`${concrete}${call.query ?? ''}`, {
    method: call.method,
    json: call.json,
    key: call.key,
    headers: call.headers,
  });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

function problems(call: Call, status: number, body: unknown): string[] {
  let errors: ErrorObject[];
  if (ref.statuses(call.method, call.path).includes(String(status))) errors = ref.check(call.method, call.path, status, body);
  else {
    const validate = status === 400 ? SPEC_ERRORS.DetailedError : SPEC_ERRORS.StandardError;
    errors = validate(body) ? [] : (validate.errors ?? []);
  }
  return errors.map((e) => `${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`);
}

/** [name, call, concrete path, expected status] */
const CASES: [string, Call, string | undefined, number][] = [];
const add = (name: string, call: Call, status: number, concrete?: string) => CASES.push([name, call, concrete, status]);

// Models (public).
for (const type of ['text', 'all', 'embedding', 'code'])
  add(`models type=${type}`, { method: 'GET', path: '/models', query: `?type=${type}` }, 200);
add('models traits', { method: 'GET', path: '/models/traits' }, 200);
add('models compatibility mapping', { method: 'GET', path: '/models/compatibility_mapping', query: '?type=embedding' }, 200);
add('models bad type', { method: 'GET', path: '/models', query: '?type=bogus' }, 400);
add('models traits, type=all is not a reference value there', { method: 'GET', path: '/models/traits', query: '?type=all' }, 400);
add('models traits, wrong key', { method: 'GET', path: '/models/traits', key: 'svc_wrong' }, 401);
// API keys.
add('api_keys list', { method: 'GET', path: '/api_keys' }, 200);
add('api_keys list, no key', { method: 'GET', path: '/api_keys', key: null }, 401);
add(
  'api_keys create',
  { method: 'POST', path: '/api_keys', json: { apiKeyType: 'ADMIN', description: 'c2', expiresAt: '2099-01-01' } },
  200,
);
add(
  'api_keys create, bad expiresAt',
  { method: 'POST', path: '/api_keys', json: { apiKeyType: 'ADMIN', description: 'x', expiresAt: 'soon' } },
  400,
);
add('api_keys create, no key', { method: 'POST', path: '/api_keys', key: null, json: { apiKeyType: 'ADMIN', description: 'x' } }, 401);
add(
  'api_keys update, unknown id',
  { method: 'PATCH', path: '/api_keys', json: { id: '00000000-0000-4000-8000-000000000000', description: 'x' } },
  400,
);
add('api_keys delete, unknown id', { method: 'DELETE', path: '/api_keys', query: '?id=00000000-0000-4000-8000-000000000000' }, 400);
add('api_keys delete, no key', { method: 'DELETE', path: '/api_keys', key: null, query: '?id=00000000-0000-4000-8000-000000000000' }, 401);
add('api_keys rate_limits', { method: 'GET', path: '/api_keys/rate_limits' }, 200);
add('api_keys rate_limits, no key', { method: 'GET', path: '/api_keys/rate_limits', key: null }, 401);
add('api_keys rate_limits log', { method: 'GET', path: '/api_keys/rate_limits/log' }, 200);
add('api_keys generate_web3_key token', { method: 'GET', path: '/api_keys/generate_web3_key', key: null }, 200);
add('api_keys by id, no key', { method: 'GET', path: '/api_keys/{id}', key: null }, 401, '/api_keys/00000000-0000-4000-8000-000000000000');
// Characters.
add('characters', { method: 'GET', path: '/characters' }, 200);
add('characters sortBy highlyRated', { method: 'GET', path: '/characters', query: '?sortBy=highlyRated' }, 200);
add('characters, no key', { method: 'GET', path: '/characters', key: null }, 401);
add('character', { method: 'GET', path: '/characters/{slug}' }, 200, '/characters/alan-watts');
add('character, unknown', { method: 'GET', path: '/characters/{slug}' }, 404, '/characters/nobody');
add('reviews', { method: 'GET', path: '/characters/{slug}/reviews' }, 200, '/characters/alan-watts/reviews');
add('reviews, bad page', { method: 'GET', path: '/characters/{slug}/reviews', query: '?page=abc' }, 400, '/characters/alan-watts/reviews');
add('reviews, unknown', { method: 'GET', path: '/characters/{slug}/reviews' }, 404, '/characters/nobody/reviews');
// Chat.
const messages = [{ role: 'user', content: 'hi' }];
add('chat', { method: 'POST', path: '/chat/completions', json: { model: 'qwen3-4b', messages } }, 200);
add(
  'chat, tools',
  {
    method: 'POST',
    path: '/chat/completions',
    json: { model: 'llama-3.3-70b', messages, tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }] },
  },
  200,
);
add(
  'chat, n and logprobs',
  { method: 'POST', path: '/chat/completions', json: { model: 'llama-3.3-70b', messages, n: 2, logprobs: true, top_logprobs: 2 } },
  200,
);
add(
  'chat, simulated web search with citations',
  {
    method: 'POST',
    path: '/chat/completions',
    json: {
      model: 'qwen3-4b',
      messages,
      svc_parameters: { enable_web_search: 'on', enable_web_citations: true, return_search_results_as_documents: true },
    },
  },
  200,
);
add(
  'chat, simulated x search',
  { method: 'POST', path: '/chat/completions', json: { model: 'grok-41-fast', messages, svc_parameters: { enable_x_search: true } } },
  200,
);
add(
  'chat, json_schema',
  {
    method: 'POST',
    path: '/chat/completions',
    json: {
      model: 'mistral-31-24b',
      messages,
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'x', schema: { type: 'object', properties: { a: { type: 'integer' } }, required: ['a'] } },
      },
    },
  },
  200,
);
add('chat, bad temperature', { method: 'POST', path: '/chat/completions', json: { model: 'qwen3-4b', messages, temperature: 9 } }, 400);
add('chat, no key', { method: 'POST', path: '/chat/completions', key: null, json: { model: 'qwen3-4b', messages } }, 401);
// Embeddings.
add('embeddings', { method: 'POST', path: '/embeddings', json: { model: 'text-embedding-bge-m3', input: ['a', 'b'] } }, 200);
// encoding_format base64 is left out: the reference types `embedding` as a number array only,
// while the embeddings interface (and svc) returns a base64 string then.
add('embeddings, no input', { method: 'POST', path: '/embeddings', json: { model: 'text-embedding-bge-m3' } }, 400);
add('embeddings, no key', { method: 'POST', path: '/embeddings', key: null, json: { model: 'text-embedding-bge-m3', input: 'a' } }, 401);
// Billing.
const rpcCall = (id: number, method: string) => ({ jsonrpc: '2.0', id, method, params: [] });
add('rpc networks', { method: 'GET', path: '/crypto/rpc/networks', key: null }, 200);
add('rpc call', { method: 'POST', path: '/crypto/rpc/{network}', json: rpcCall(1, 'eth_chainId') }, 200, '/crypto/rpc/svc-sim-mainnet');
add(
  'rpc batch with an RPC error',
  { method: 'POST', path: '/crypto/rpc/{network}', json: [rpcCall(1, 'eth_chainId'), rpcCall(2, 'eth_getLogs')] },
  200,
  '/crypto/rpc/svc-sim-mainnet',
);
add('rpc, unknown network', { method: 'POST', path: '/crypto/rpc/{network}', json: rpcCall(1, 'eth_chainId') }, 400, '/crypto/rpc/nowhere');
add(
  'rpc, eth_subscribe',
  { method: 'POST', path: '/crypto/rpc/{network}', json: rpcCall(1, 'eth_subscribe') },
  400,
  '/crypto/rpc/svc-sim-mainnet',
);
add(
  'rpc, no key',
  { method: 'POST', path: '/crypto/rpc/{network}', key: null, json: rpcCall(1, 'eth_chainId') },
  401,
  '/crypto/rpc/svc-sim-mainnet',
);

add('balance', { method: 'GET', path: '/billing/balance' }, 200);
add('balance, no key', { method: 'GET', path: '/billing/balance', key: null }, 401);
add('usage', { method: 'GET', path: '/billing/usage' }, 200);
add('usage, bad limit', { method: 'GET', path: '/billing/usage', query: '?limit=0' }, 400);
add('usage-history', { method: 'GET', path: '/billing/usage-history' }, 200);
add('usage-history, bad currency', { method: 'GET', path: '/billing/usage-history', query: '?currency=EUR' }, 400);

describe('served operations against the reference OpenAPI', () => {
  for (const [name, call, concrete, status] of CASES)
    test(`${call.method} ${call.path}${call.query ?? ''}: ${name} -> ${status}`, async () => {
      const res = await send(call, concrete);
      expect(res.status).toBe(status);
      expect(problems(call, res.status, res.body)).toEqual([]);
    });

  test('GET /api_keys/{id} with the INFERENCE key id, and PATCH of it', async () => {
    const one = await send({ method: 'GET', path: '/api_keys/{id}' }, `/api_keys/${inferenceKeyId}`);
    expect(one.status).toBe(200);
    expect(problems({ method: 'GET', path: '/api_keys/{id}' }, 200, one.body)).toEqual([]);
    const patch: Call = { method: 'PATCH', path: '/api_keys', json: { id: inferenceKeyId, description: 'renamed' } };
    const patched = await send(patch);
    expect(patched.status).toBe(200);
    expect(problems(patch, 200, patched.body)).toEqual([]);
  });

  test('usage entries include an inference line, and both usage lists validate', async () => {
    const usage = (await send({ method: 'GET', path: '/billing/usage-history' })).body as { data: { inferenceDetails: unknown }[] };
    expect(usage.data.some((e) => e.inferenceDetails !== null)).toBe(true);
  });

  test('a 429 from the key-creation limit carries Retry-After and validates', async () => {
    const call: Call = { method: 'POST', path: '/api_keys', json: { apiKeyType: 'INFERENCE', description: 'burst' } };
    let last = await send(call);
    for (let i = 0; i < 25 && last.status !== 429; i++) last = await send(call);
    expect(last.status).toBe(429);
    const wait = Number(last.headers.get('retry-after'));
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(60);
    expect(problems(call, 429, last.body)).toEqual([]);
  });

  test('an INFERENCE key on account endpoints: 403 StandardError', async () => {
    for (const call of [
      { method: 'GET', path: '/api_keys' },
      { method: 'GET', path: '/billing/balance' },
      { method: 'GET', path: '/api_keys/rate_limits' },
      { method: 'GET', path: '/billing/usage-history' },
    ] as Call[]) {
      const res = await send({ ...call, key: inferenceKey });
      expect(res.status).toBe(403);
      expect(problems(call, 403, res.body)).toEqual([]);
    }
  });

  test('the INFERENCE key is used for chat (200 validates)', async () => {
    const call: Call = { method: 'POST', path: '/chat/completions', key: inferenceKey, json: { model: 'qwen3-4b', messages } };
    const res = await send(call);
    expect(res.status).toBe(200);
    expect(problems(call, 200, res.body)).toEqual([]);
  });
});
