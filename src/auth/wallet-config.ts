import { Type as T, type Static } from '@sinclair/typebox';
import { parseConfigSection, type Config } from '../config';
import { PaymentsConfigSchema } from '../x402/config';

/** Solana mainnet as a CAIP-2 chain id (the genesis-hash form wallets send). */
export const SOLANA_MAINNET = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';

const SiwxSchema = T.Object(
  {
    /** Accept SIGN-IN-WITH-X on inference routes. */
    enabled: T.Boolean({ default: true }),
    /** Domains a sign-in message may name, besides the host of `publicUrl`. */
    domains: T.Array(T.String({ minLength: 1 }), { default: [] }),
    /** EVM chains accepted (EIP-155 ids); Base by default. */
    evmChainIds: T.Array(T.Integer({ minimum: 1 }), { default: [8453] }),
    /** Solana cluster accepted, as a CAIP-2 id. */
    solanaChainId: T.String({ default: SOLANA_MAINNET }),
    /** How old `issuedAt` may be. */
    maxAgeSeconds: T.Integer({ minimum: 1, default: 300 }),
    /** How far in the future `issuedAt` may be (clock skew). */
    maxFutureSeconds: T.Integer({ minimum: 0, default: 30 }),
    /** Largest allowed gap between the payload `timestamp` and the message `issuedAt`. */
    timestampSkewSeconds: T.Integer({ minimum: 0, default: 30 }),
    /** How long a used nonce is remembered; longer than maxAge plus skew so no replay fits. */
    nonceTtlSeconds: T.Integer({ minimum: 1, default: 330 }),
  },
  { default: {} },
);

const StakingSchema = T.Object({
  /** JSON-RPC endpoint of an EVM node on the staking chain. */
  rpcUrl: T.String({ minLength: 1 }),
  /** ERC-20 contract whose balanceOf is the staked balance. */
  tokenAddress: T.String({ pattern: '^0x[0-9a-fA-F]{40}$' }),
  /** Smallest balance, in the token's base units, that makes a wallet eligible. */
  minBalance: T.String({ pattern: '^\\d+$', default: '1' }),
  /** Names used in the refusal message ("Wallet has no staked SVC on Base"). */
  symbol: T.String({ default: 'SVC' }),
  network: T.String({ default: 'Base' }),
  timeoutMs: T.Integer({ minimum: 1, default: 5000 }),
});

const Web3KeysSchema = T.Object(
  {
    /** Lifetime of the token from GET /api_keys/generate_web3_key. */
    tokenTtlSeconds: T.Integer({ minimum: 10, default: 900 }),
    /** Wallets that may always create keys (EVM addresses, any case). */
    allowList: T.Array(T.String({ pattern: '^0x[0-9a-fA-F]{40}$' }), { default: [] }),
    /** On-chain staked-balance check; without it only the allow list grants keys. */
    staking: T.Optional(StakingSchema),
  },
  { default: {} },
);

/** The `wallets` config section: wallet sign-in, web3 key and x402 payment settings. */
export const WalletsConfigSchema = T.Object(
  { siwx: SiwxSchema, web3Keys: Web3KeysSchema, payments: PaymentsConfigSchema },
  { default: {} },
);

/** The validated `wallets` section. */
export type WalletsConfig = Static<typeof WalletsConfigSchema>;

/** Validates `config.wallets` with defaults; throws ConfigError naming the bad field. */
export function parseWalletsConfig(config: Pick<Config, 'wallets'>): WalletsConfig {
  return parseConfigSection(WalletsConfigSchema, config.wallets, 'wallets');
}

/** The service's own origin: `publicUrl` when set, else http://localhost on the port it actually listens on. */
export function publicOrigin(config: Pick<Config, 'publicUrl' | 'port'>, listenPort?: number): string {
  return config.publicUrl ? new URL(config.publicUrl).origin : `http://localhost:${listenPort ?? config.port}`;
}

/**
 * Domains (host[:port]) a sign-in may name: the public URL's host, or without one the
 * loopback names on the actual listen port; plus configured ones.
 */
export function allowedDomains(config: Pick<Config, 'publicUrl' | 'port'>, wallets: WalletsConfig, listenPort?: number): Set<string> {
  if (config.publicUrl) return new Set([new URL(config.publicUrl).host, ...wallets.siwx.domains]);
  const port = listenPort ?? config.port;
  return new Set([`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, ...wallets.siwx.domains]);
}
