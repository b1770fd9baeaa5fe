import type { Database } from '../../db/database';
import type { WalletAuthenticator } from '../wallet-authenticator';
import type { Caller } from '../../http/request-context';
import type { KeyValueStore } from '../../kv/store';
import { ensureWalletAccount, normalizeWalletAddress, type WalletAccount } from '../wallet-accounts';
import type { WalletsConfig } from '../wallet-config';
import { checkSignInFields, type SignInFields } from './checks';
import { signInError } from './errors';
import { isEvmAddress, parseEvmMessage, verifyEvmSignature } from './evm';
import { decodeSignIn, resolveChain, type SignInChain, type SignInPayload } from './payload';
import { parseSolanaMessage, solanaPublicKey, verifySolanaSignature } from './solana';

/** Reads the sign-in header: `SIGN-IN-WITH-X`, or the legacy `X-Sign-In-With-X`. */
export function signInHeader(request: Request): string | null {
  return request.headers.get('sign-in-with-x') ?? request.headers.get('x-sign-in-with-x');
}

async function parseAndCheckAddress(payload: SignInPayload, chain: SignInChain): Promise<SignInFields> {
  const validWallet = chain.kind === 'evm' ? await isEvmAddress(payload.address) : solanaPublicKey(payload.address) !== null;
  if (!validWallet) throw signInError('X402_SIGN_IN_INVALID_WALLET', 'the address is not a valid wallet address');
  const fields = chain.kind === 'evm' ? await parseEvmMessage(payload.message) : parseSolanaMessage(payload.message);
  const same = chain.kind === 'evm' ? fields.address.toLowerCase() === payload.address.toLowerCase() : fields.address === payload.address;
  if (!same) throw signInError('X402_SIGN_IN_ADDRESS_MISMATCH', 'the message is signed for another address');
  if (fields.chain !== chain.caip) throw signInError('X402_SIGN_IN_CHAIN_MISMATCH', 'the message names another chain than the payload');
  return fields;
}

/**
 * SIGN-IN-WITH-X (spec 5.2): verifies the signed payload offline (EIP-4361 via siwe + EIP-191
 * for EVM, Ed25519 for Solana), burns its nonce, and returns the wallet's account as the
 * caller, creating it (with a USDC balance row) on first sign-in. Returns null when no header
 * was sent, so the gate can fall through to "missing credentials".
 */
export function createWalletAuthenticator(deps: {
  db: Database;
  kv: KeyValueStore;
  now: () => number;
  siwx: WalletsConfig['siwx'];
  /** The domains a message may name; a function when they follow the listen port. */
  domains: Set<string> | (() => Set<string>);
}): WalletAuthenticator {
  // Wallet accounts never move, so a resolved one is cached (tier changes show within a minute).
  const accounts = new Map<string, { account: WalletAccount; until: number }>();

  async function accountOf(address: string, chain: 'evm' | 'solana'): Promise<WalletAccount> {
    const key = normalizeWalletAddress(address, chain);
    const hit = accounts.get(key);
    if (hit && hit.until > deps.now()) return hit.account;
    const account = await ensureWalletAccount(deps.db, address, chain);
    if (accounts.size > 50_000) accounts.clear();
    accounts.set(key, { account, until: deps.now() + 60_000 });
    return account;
  }

  return async function authenticateWallet(request): Promise<Caller | null> {
    const header = signInHeader(request);
    if (header === null) return null;
    const payload = await decodeSignIn(header);
    const chain = resolveChain(payload, deps.siwx);
    const fields = await parseAndCheckAddress(payload, chain);
    const nowMs = deps.now();
    checkSignInFields(fields, {
      timestampMs: Number(payload.timestamp),
      nowMs,
      domains: typeof deps.domains === 'function' ? deps.domains() : deps.domains,
      siwx: deps.siwx,
    });
    const valid =
      chain.kind === 'evm'
        ? await verifyEvmSignature(payload.message, payload.signature, payload.address)
        : await verifySolanaSignature(payload.message, payload.signature, payload.address);
    if (!valid) throw signInError('X402_SIGN_IN_INVALID_SIGNATURE', 'the signature does not match the message and address');
    // Burned only after the signature checked out, so nobody can spend another wallet's nonces.
    const address = normalizeWalletAddress(payload.address, chain.kind);
    const fresh = await deps.kv.setIfAbsent(`siwx:nonce:${chain.kind}:${address}:${fields.nonce}`, '1', deps.siwx.nonceTtlSeconds * 1000);
    if (!fresh) throw signInError('X402_SIGN_IN_NONCE_REUSED', 'this nonce was already used');
    const account = await accountOf(payload.address, chain.kind);
    return { accountId: account.id, tier: account.tier, via: 'wallet', apiKey: null, wallet: { address, chain: chain.kind } };
  };
}
