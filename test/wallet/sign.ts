import * as ed from '@noble/ed25519';
import bs58 from 'bs58';
import { randomBytes } from 'node:crypto';
import { Wallet, type HDNodeWallet } from 'ethers';
import { SiweMessage } from 'siwe';

/** The domain the wallet tests configure as `publicUrl`. */
export const DOMAIN = 'api.svc.test';
export const PUBLIC_URL = `https://${DOMAIN}`;
export const SOLANA_MAINNET = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';

/** Message fields a test may override; times are epoch ms. */
export interface SignInOptions {
  now?: number;
  domain?: string;
  uri?: string;
  chainId?: number | string;
  messageChainId?: number | string;
  nonce?: string | null;
  issuedAt?: number;
  expiresInMs?: number | null;
  notBefore?: number;
  timestamp?: number;
  address?: string;
  type?: string;
  statement?: string;
}

const nonce = () => randomBytes(8).toString('hex');
const iso = (ms: number) => new Date(ms).toISOString();

/** Base64 of the header JSON. */
export function encodeHeader(payload: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(payload)).toString('base64');
}

/** A fresh random EVM wallet. */
export const newEvmWallet = (): HDNodeWallet => Wallet.createRandom();

/** An EIP-4361 message, as `siwe` formats it. */
export function siweText(address: string, o: SignInOptions = {}): string {
  const now = o.now ?? Date.now();
  return new SiweMessage({
    domain: o.domain ?? DOMAIN,
    address,
    statement: o.statement ?? 'Sign in to svc API',
    uri: o.uri ?? PUBLIC_URL,
    version: '1',
    chainId: Number(o.messageChainId ?? 8453),
    nonce: o.nonce === null ? undefined : (o.nonce ?? nonce()),
    issuedAt: iso(o.issuedAt ?? now),
    expirationTime: o.expiresInMs === null ? undefined : iso((o.issuedAt ?? now) + (o.expiresInMs ?? 600_000)),
    notBefore: o.notBefore ? iso(o.notBefore) : undefined,
  }).prepareMessage();
}

/** A SIGN-IN-WITH-X header value signed by an EVM wallet (EIP-191 personal_sign of the SIWE text). */
export async function evmSignIn(
  wallet: HDNodeWallet,
  o: SignInOptions & { message?: string; signer?: HDNodeWallet } = {},
): Promise<string> {
  const message = o.message ?? siweText(wallet.address, o);
  const signature = await (o.signer ?? wallet).signMessage(message);
  return encodeHeader({
    address: o.address ?? wallet.address,
    message,
    signature,
    timestamp: o.timestamp ?? o.issuedAt ?? o.now ?? Date.now(),
    chainId: o.chainId ?? 8453,
    ...(o.type ? { type: o.type } : {}),
  });
}

/** A fresh Ed25519 keypair and its base58 Solana address. */
export async function newSolanaWallet() {
  const secretKey = ed.utils.randomSecretKey();
  const publicKey = await ed.getPublicKeyAsync(secretKey);
  return { secretKey, address: bs58.encode(publicKey) };
}

/** The Solana sign-in message text (SIWS layout). */
export function solanaText(address: string, o: SignInOptions = {}): string {
  const now = o.now ?? Date.now();
  const issuedAt = o.issuedAt ?? now;
  const lines = [
    `${o.domain ?? DOMAIN} wants you to sign in with your Solana account:`,
    address,
    '',
    o.statement ?? 'Sign in to svc API',
    '',
    `URI: ${o.uri ?? PUBLIC_URL}`,
    'Version: 1',
    `Chain ID: ${o.messageChainId ?? 'mainnet'}`,
  ];
  if (o.nonce !== null) lines.push(`Nonce: ${o.nonce ?? nonce()}`);
  lines.push(`Issued At: ${iso(issuedAt)}`);
  if (o.expiresInMs !== null) lines.push(`Expiration Time: ${iso(issuedAt + (o.expiresInMs ?? 600_000))}`);
  if (o.notBefore) lines.push(`Not Before: ${iso(o.notBefore)}`);
  return lines.join('\n');
}

/** A SIGN-IN-WITH-X header signed with Ed25519; signature base58 (or base64 with `encoding`). */
export async function solanaSignIn(
  wallet: { secretKey: Uint8Array; address: string },
  o: SignInOptions & { message?: string; encoding?: 'base58' | 'base64'; signerKey?: Uint8Array } = {},
): Promise<string> {
  const message = o.message ?? solanaText(wallet.address, o);
  const signature = await ed.signAsync(new TextEncoder().encode(message), o.signerKey ?? wallet.secretKey);
  return encodeHeader({
    address: o.address ?? wallet.address,
    message,
    signature: o.encoding === 'base64' ? Buffer.from(signature).toString('base64') : bs58.encode(signature),
    timestamp: o.timestamp ?? o.issuedAt ?? o.now ?? Date.now(),
    chainId: o.chainId ?? SOLANA_MAINNET,
    type: o.type ?? 'ed25519',
  });
}
