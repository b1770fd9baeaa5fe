import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { KeyValueStore } from '../kv/store';

/** Why a token was refused; the messages are the reference API's. */
export class TokenError extends Error {
  override name = 'TokenError';
}

/** The claims of a web3-key token. */
export interface Web3TokenClaims {
  jti: string;
  iat: number;
  exp: number;
  aud: string;
}

const AUDIENCE = 'svc:generate_web3_key';
const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');

function sign(input: string, secret: Buffer): Buffer {
  return createHmac('sha256', secret).update(input).digest();
}

/**
 * The signing secret: `config.tokenSecret` when set; otherwise one random secret shared by
 * every instance through the KV store (first writer wins), so a token issued by one instance
 * verifies on another. With the in-memory store that is simply a per-process secret.
 */
export async function tokenSecret(configured: string | undefined, kv: KeyValueStore): Promise<Buffer> {
  if (configured) return Buffer.from(configured);
  await kv.setIfAbsent('web3:token-secret', randomBytes(32).toString('base64url'), 10 * 365 * 86_400_000);
  const shared = await kv.get('web3:token-secret');
  if (!shared) throw new Error('web3 token secret vanished from the KV store');
  return Buffer.from(shared, 'base64url');
}

/** Issues and checks the short-lived HS256 JWTs a wallet signs to get a web3 key. */
export function createWeb3Tokens(opts: { secret: () => Promise<Buffer>; ttlSeconds: number; now: () => number }) {
  // Re-read each minute, so instances converge again if the shared secret is ever lost.
  let cached: { secret: Promise<Buffer>; until: number } | null = null;
  const secretOnce = () => {
    if (!cached || cached.until <= Date.now()) {
      const secret = opts.secret();
      cached = { secret, until: Date.now() + 60_000 };
      secret.catch(() => (cached = null));
    }
    return cached.secret;
  };

  return {
    /** A new token and its claims. */
    async issue(): Promise<{ token: string; claims: Web3TokenClaims }> {
      const secret = await secretOnce();
      const iat = Math.floor(opts.now() / 1000);
      const claims: Web3TokenClaims = { jti: randomUUID(), iat, exp: iat + opts.ttlSeconds, aud: AUDIENCE };
      const body = `${HEADER}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
      return { token: `${body}.${sign(body, secret).toString('base64url')}`, claims };
    },

    /** The claims of a valid, unexpired token; throws TokenError otherwise. Single use is the caller's job. */
    async verify(token: string): Promise<Web3TokenClaims> {
      const secret = await secretOnce();
      const parts = token.split('.');
      if (parts.length !== 3 || parts.some((p) => !/^[A-Za-z0-9_-]+$/.test(p))) throw new TokenError('JWT is malformed');
      const [header, payload, signature] = parts as [string, string, string];
      let claims: Partial<Web3TokenClaims>;
      try {
        const head = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as { alg?: unknown };
        claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
        if (head.alg !== 'HS256' || typeof claims !== 'object' || claims === null) throw new Error('shape');
      } catch {
        throw new TokenError('JWT is malformed');
      }
      const expected = sign(`${header}.${payload}`, secret);
      const given = Buffer.from(signature, 'base64url');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new TokenError('JWT signature is invalid');
      if (typeof claims.jti !== 'string' || typeof claims.exp !== 'number' || typeof claims.iat !== 'number' || claims.aud !== AUDIENCE)
        throw new TokenError('JWT claims are invalid');
      if (claims.exp * 1000 <= opts.now()) throw new TokenError('JWT has expired');
      return claims as Web3TokenClaims;
    },
  };
}

/** The token issuer/verifier type. */
export type Web3Tokens = ReturnType<typeof createWeb3Tokens>;
