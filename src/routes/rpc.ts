import { Type as T } from '@sinclair/typebox';
import { Elysia, type Context } from 'elysia';
import type { AppDeps } from '../deps';
import type { Stages } from '../gates';
import { invalidField, payloadTooLarge } from '../http/errors';
import type { MeteredCall } from '../pipeline/metered-call';
import { parseRpcConfig } from '../rpc/config';
import { bodyHash, checkIdempotencyKey, IDEMPOTENCY_KEY, IdempotencyKeys, type StoredAnswer } from '../rpc/idempotency';
import { picoUsd } from '../rpc/pricing';
import { proxyRpc, type ProxyDeps } from '../rpc/proxy';
import { parseRpcBody, RpcBodySchema } from '../rpc/request';
import { buildNetworks, type RpcNetwork } from '../../providers/rpc/networks';
import { errorResponse, errorResponses } from './responses';
import { withExample } from '../http/openapi-example';

/** GET /crypto/rpc/networks's answer. */
const NetworksSchema = T.Object({ networks: T.Array(T.String()) });

const RPC_HEADERS = {
  'X-Svc-RPC-Credits': { description: 'Credits charged for the request', schema: { type: 'integer' } },
  'X-Svc-RPC-Cost-USD': { description: 'USD charged for the request, 8 decimal places', schema: { type: 'string' } },
  'X-Request-ID': { description: 'The request id', schema: { type: 'string' } },
  'Idempotent-Replayed': {
    description: 'Present, "true", when the answer is a stored one (Idempotency-Key)',
    schema: { type: 'string', enum: ['true'] },
  },
  'X-Balance-Remaining': { description: "A wallet's USDC balance after the charge", schema: { type: 'string' } },
};

const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': { schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'Unix seconds', schema: { type: 'integer' } },
};

/** Sets the answer's RPC headers and returns its JSON text as the body. */
function send(set: Context['set'], answer: StoredAnswer, replayed: boolean, simulated: boolean): string {
  set.headers['content-type'] = 'application/json';
  set.headers['x-svc-rpc-credits'] = String(answer.credits);
  set.headers['x-svc-rpc-cost-usd'] = answer.costUsd;
  if (replayed) set.headers['idempotent-replayed'] = 'true';
  if (simulated) set.headers['x-svc-simulated'] = 'true';
  return answer.text;
}

/**
 * The crypto JSON-RPC proxy (API-NOTES 11): the networks list, and calls relayed to a
 * network's nodes on the metered call (src/rpc/proxy.ts), with Idempotency-Key replays.
 */
export function rpcRoutes(deps: AppDeps, stages: Stages) {
  const config = parseRpcConfig(deps.config.rpc);
  const networks = buildNetworks(config, deps);
  const names = [...networks.keys()].sort();
  const proxy: ProxyDeps = { config, kv: deps.kv, now: deps.now, creditPico: picoUsd(config.usdPerCredit) };
  const longestCall = Math.max(1, ...config.networks.map((n) => n.urls.length)) * config.timeoutMs;
  const keys = new IdempotencyKeys(deps.kv, { ttlMs: config.idempotencyTtlMs, pendingMs: longestCall + 5_000 });

  /** Resolves the network and parses the body: 400 for an unknown network or a bad body, before anything is reserved. */
  function accept(network: string, body: unknown): { target: RpcNetwork; text: string } {
    const target = networks.get(network);
    if (!target)
      throw invalidField(['network'], `"${network.slice(0, 100)}" is not a supported network; GET /crypto/rpc/networks lists them`, 'path');
    const text = typeof body === 'string' ? body : '';
    if (Buffer.byteLength(text) > config.maxRequestBytes) throw payloadTooLarge(config.maxRequestBytes);
    return { target, text };
  }

  async function relay(network: string, body: unknown, request: Request, call: MeteredCall, set: Context['set']) {
    const { target, text } = accept(network, body);
    const parsed = parseRpcBody(text);
    const key = request.headers.get('idempotency-key');
    if (key === null) return send(set, await proxyRpc(proxy, target, parsed, call), false, target.simulated);
    checkIdempotencyKey(key);
    const claim = await keys.claim(call.request.caller!.accountId, key, bodyHash(target.id, text));
    if (claim.replay) return send(set, claim.replay, true, target.simulated);
    let answer: StoredAnswer | null = null;
    try {
      answer = await proxyRpc(proxy, target, parsed, call);
    } finally {
      await claim.finish(answer);
    }
    return send(set, answer, false, target.simulated);
  }

  return new Elysia({ name: 'svc.routes.rpc' })
    .use(stages)
    .get(
      '/crypto/rpc/networks',
      function listCryptoRpcNetworks() {
        return { networks: names };
      },
      {
        response: NetworksSchema,
        detail: {
          operationId: 'listCryptoRpcNetworks',
          summary: 'List crypto RPC networks',
          tags: ['Crypto RPC'],
          security: [{}],
          description: `The networks POST /crypto/rpc/{network} serves, sorted. ${names.includes('svc-sim-mainnet') ? 'svc-sim-mainnet is simulated by svc itself (no node).' : ''}`,
        },
      },
    )
    .post(
      '/crypto/rpc/:network',
      function cryptoRpcProxy({ params, body, request, call, set }) {
        return relay(params.network, body, request, call, set);
      },
      {
        meterWithoutModel: true,
        parse: 'text',
        // The example is the docs page's pre-filled network: one this server serves.
        params: T.Object({ network: T.String(names.length > 0 ? { examples: [names[0]] } : {}) }),
        // Declared for the OpenAPI description (Elysia documents header parameters from this schema only).
        headers: T.Object({
          'idempotency-key': T.Optional(
            T.String({
              pattern: IDEMPOTENCY_KEY.source,
              description: '1 to 255 letters, digits, "_" or "-"',
            }),
          ),
        }),
        detail: {
          operationId: 'cryptoRpcProxy',
          summary: 'Proxy a JSON-RPC call to a blockchain node',
          tags: ['Crypto RPC'],
          security: [{ BearerAuth: [] }, { siwx: [] }],
          description:
            'Relays a JSON-RPC 2.0 call, or a batch of up to 100, to a node of the network; answers come back in the ' +
            "request's order with its ids, a JSON-RPC `error` with HTTP 200. Methods are allow-listed per network family " +
            "(EVM, Starknet, zkSync); WebSocket-only methods (eth_subscribe) and other families' methods are refused. " +
            'Each call costs its tier (1×, 2× or 4×) of 20 credits (30 on zkSync); a call answered with an error costs 5. ' +
            'With an `Idempotency-Key`, a repeated request within 24 h gets the stored answer (`Idempotent-Replayed: true`) and is not charged again.',
          requestBody: {
            required: true,
            content: { 'application/json': { schema: withExample(RpcBodySchema, { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber' }) } },
          } as never,
          responses: {
            200: {
              description: 'The JSON-RPC answer (single or batch), passed through',
              headers: RPC_HEADERS,
              content: { 'application/json': {} },
            },
            ...errorResponses(400, 401, 402),
            413: errorResponse('Request body too large'),
            429: {
              ...errorResponse(
                'Rate limit exceeded: requests per minute, the daily credit cap, or a request with the same Idempotency-Key still running',
              ),
              headers: RATE_LIMIT_HEADERS,
            },
            500: errorResponse('Internal error'),
            502: errorResponse('No node answered, or the answers were not JSON-RPC; nothing was charged'),
          } as never,
        },
      },
    );
}
