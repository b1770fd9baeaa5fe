import { Type as T, type Static } from '@sinclair/typebox';
import { ConfigError, parseConfigSection } from '../config';

/** The method families whose allow-lists and base credits differ. */
export const RpcFamilySchema = T.Union([T.Literal('evm'), T.Literal('starknet'), T.Literal('zksync')]);

/** A network family: `evm`, `starknet` or `zksync`. */
export type RpcFamily = Static<typeof RpcFamilySchema>;

/** A method's credit multiplier over its family's base credits. */
export const CreditTierSchema = T.Union([T.Literal(1), T.Literal(2), T.Literal(4)]);

/** An allow-list: method name to its credit tier. */
export const AllowListSchema = T.Record(T.String({ pattern: '^[A-Za-z0-9_]{1,100}$' }), CreditTierSchema);

/** One proxied network and the nodes that serve it. */
export const RpcNetworkSchema = T.Object(
  {
    id: T.String({ pattern: '^[a-z0-9][a-z0-9-]{0,63}$', description: 'The path segment: POST /crypto/rpc/{id}' }),
    family: RpcFamilySchema,
    urls: T.Array(T.String({ pattern: '^https?://' }), {
      minItems: 1,
      description: 'Node URLs, tried in turn; a failed one is skipped for a while',
    }),
    /** Replaces the family's allow-list for this network. */
    methods: T.Optional(AllowListSchema),
  },
  { additionalProperties: false },
);

/** A configured network. */
export type RpcNetworkConfig = Static<typeof RpcNetworkSchema>;

/**
 * The config's `rpc` section: networks and their nodes, the allow-lists per family, the
 * node timeouts and caps, and the prices and limits of the crypto RPC proxy.
 */
export const RpcConfigSchema = T.Object(
  {
    networks: T.Array(RpcNetworkSchema, { default: [] }),
    simulator: T.Optional(
      T.Boolean({ description: 'Serve the simulated network svc-sim-mainnet; by default only when no network is configured' }),
    ),
    methods: T.Object(
      { evm: T.Optional(AllowListSchema), starknet: T.Optional(AllowListSchema), zksync: T.Optional(AllowListSchema) },
      { default: {}, additionalProperties: false, description: "Replaces a family's default allow-list" },
    ),
    timeoutMs: T.Integer({ minimum: 100, default: 10_000, description: 'Time one node has to answer in full' }),
    maxResponseBytes: T.Integer({ minimum: 1024, default: 10 * 1024 * 1024, description: 'Larger node answers are refused (502)' }),
    maxRequestBytes: T.Integer({
      minimum: 1024,
      default: 4 * 1024 * 1024,
      description: 'Larger request bodies are refused (413); a blob transaction in hex runs to about 1.6 MB',
    }),
    unhealthyMs: T.Integer({ minimum: 0, default: 30_000, description: 'How long a failed or slow node is skipped' }),
    requestsPerMinute: T.Integer({ minimum: 1, default: 100, description: 'Requests per minute per account (a batch is one request)' }),
    dailyCreditCap: T.Integer({ minimum: 0, default: 10_000_000, description: 'Credits per account per UTC day; 0 for no cap' }),
    usdPerCredit: T.String({ pattern: '^\\d+(\\.\\d{1,12})?$', default: '0.0000007', description: 'Price of one credit in USD' }),
    idempotencyTtlMs: T.Integer({ minimum: 1_000, default: 24 * 3_600_000, description: 'How long an Idempotency-Key answer is kept' }),
  },
  { additionalProperties: false },
);

/** The validated `rpc` section. */
export type RpcConfig = Static<typeof RpcConfigSchema>;

/** Validates `config.rpc` (absent means the defaults); throws ConfigError naming the field. */
export function parseRpcConfig(raw: Record<string, unknown> | undefined): RpcConfig {
  const config = parseConfigSection(RpcConfigSchema, raw, 'rpc');
  const seen = new Set<string>();
  for (const network of config.networks) {
    if (seen.has(network.id)) throw new ConfigError(`config: rpc.networks: network "${network.id}" is listed twice`);
    seen.add(network.id);
  }
  return config;
}
