import { Type as T, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { WalletsConfig } from '../wallet-config';
import { SOLANA_MAINNET } from '../wallet-config';
import { signInError } from './errors';
import { fromStandardSignIn, isStandardSignIn } from './standard-payload';

const PayloadSchema = T.Object({
  address: T.String({ minLength: 1, maxLength: 128 }),
  message: T.String({ minLength: 1, maxLength: 8192 }),
  signature: T.String({ minLength: 1, maxLength: 1024 }),
  /** Unix milliseconds when the client built the header. */
  timestamp: T.Union([T.Number(), T.String({ pattern: '^\\d{1,16}$' })]),
  chainId: T.Union([T.Integer(), T.String({ minLength: 1, maxLength: 128 })]),
  type: T.Optional(T.String()),
});

/** The decoded SIGN-IN-WITH-X header. */
export type SignInPayload = Static<typeof PayloadSchema>;

/** The chain a sign-in is for, resolved from `chainId` and `type`. */
export type SignInChain = { kind: 'evm'; chainId: number; caip: string } | { kind: 'solana'; caip: string };

/**
 * Decodes the base64 JSON header value, in the reference's form or the form `@x402/extensions`
 * builds; 401 PARSE_ERROR or INVALID_PAYLOAD when it is neither.
 */
export async function decodeSignIn(header: string): Promise<SignInPayload> {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(header.trim(), 'base64').toString('utf8'));
  } catch {
    throw signInError('X402_SIGN_IN_PARSE_ERROR', 'the header is not base64-encoded JSON');
  }
  if (isStandardSignIn(value)) value = await fromStandardSignIn(value);
  if (!Value.Check(PayloadSchema, value)) {
    const first = Value.Errors(PayloadSchema, value).First();
    const fieldName = first?.path.replace(/^\//, '') || 'payload';
    throw signInError('X402_SIGN_IN_INVALID_PAYLOAD', `field "${fieldName}" is missing or invalid`);
  }
  return value;
}

/** Solana cluster names wallets put in the message's Chain ID line, as CAIP-2 ids. */
const SOLANA_ALIASES: Record<string, string> = {
  mainnet: SOLANA_MAINNET,
  'solana:mainnet': SOLANA_MAINNET,
  'mainnet-beta': SOLANA_MAINNET,
};

/** Normalizes a Solana chain name to CAIP-2; a bare genesis-hash reference (the SIWS Chain ID line) gains its `solana:` prefix. */
export function solanaCaip(chain: string): string {
  const alias = SOLANA_ALIASES[chain];
  if (alias) return alias;
  return /^[1-9A-HJ-NP-Za-km-z]{32}$/.test(chain) ? `solana:${chain}` : chain;
}

/**
 * Resolves the payload's chain: `8453`, `"8453"` or `"eip155:8453"` for EVM; a `solana:`
 * CAIP-2 id (or `type: "ed25519"`) for Solana. Only configured chains are accepted.
 */
export function resolveChain(payload: SignInPayload, siwx: WalletsConfig['siwx']): SignInChain {
  const raw = String(payload.chainId);
  const solana = payload.type === 'ed25519' || raw.startsWith('solana:') || raw in SOLANA_ALIASES;
  if (solana) {
    if (payload.type !== undefined && payload.type !== 'ed25519')
      throw signInError('X402_SIGN_IN_CHAIN_MISMATCH', 'a Solana chain needs type "ed25519"');
    const caip = solanaCaip(raw);
    if (!caip.startsWith('solana:')) throw signInError('X402_SIGN_IN_CHAIN_MISMATCH', 'type "ed25519" needs a Solana chain id');
    if (caip !== siwx.solanaChainId) throw signInError('X402_SIGN_IN_UNSUPPORTED_CHAIN', `chain ${raw} is not supported`);
    return { kind: 'solana', caip };
  }
  if (payload.type !== undefined && !['eip191', 'evm'].includes(payload.type))
    throw signInError('X402_SIGN_IN_INVALID_PAYLOAD', `unknown signature type "${payload.type}"`);
  const match = /^(?:eip155:)?(\d{1,12})$/.exec(raw);
  if (!match) throw signInError('X402_SIGN_IN_INVALID_CHAIN_ID', 'chainId must be an EIP-155 number, "eip155:<n>" or a solana: CAIP-2 id');
  const chainId = Number(match[1]);
  if (!siwx.evmChainIds.includes(chainId)) throw signInError('X402_SIGN_IN_UNSUPPORTED_CHAIN', `chain ${chainId} is not supported`);
  return { kind: 'evm', chainId, caip: `eip155:${chainId}` };
}
