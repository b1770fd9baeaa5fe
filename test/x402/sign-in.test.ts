import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import * as ed from '@noble/ed25519';
import { createSIWxPayload, encodeSIWxHeader, type CompleteSIWxInfo } from '@x402/extensions/sign-in-with-x';
import bs58 from 'bs58';
import { randomBytes } from 'node:crypto';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createApp } from '../../src/app';
import { bootstrapAdminKey } from '../../src/auth/bootstrap';
import { closeDeps, createDeps } from '../../src/boot';
import { parseConfig } from '../../src/config';
import { startTestApp, type TestApp } from '../helpers/app';
import { BACKENDS, EMBEDDED } from '../helpers/backends';
import { evmSignIn, newEvmWallet } from '../wallet/sign';

const SOLANA = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';
const ORIGIN = 'http://localhost';

/** The challenge a server would hand out, completed with the chain the wallet picked. */
function info(chainId: string, o: Partial<CompleteSIWxInfo> = {}): CompleteSIWxInfo {
  const now = Date.now();
  return {
    domain: 'localhost',
    uri: `${ORIGIN}/api/v1/chat/completions`,
    version: '1',
    nonce: randomBytes(8).toString('hex'),
    issuedAt: new Date(now).toISOString(),
    expirationTime: new Date(now + 300_000).toISOString(),
    statement: 'Sign in to svc API',
    chainId,
    type: chainId.startsWith('solana:') ? 'ed25519' : 'eip191',
    ...o,
  };
}

/** A wallet-adapter style Solana signer over a fresh Ed25519 key. */
async function solanaSigner() {
  const secret = ed.utils.randomSecretKey();
  const publicKey = bs58.encode(await ed.getPublicKeyAsync(secret));
  return { publicKey, signMessage: (message: Uint8Array) => ed.signAsync(message, secret) };
}

describe.each(BACKENDS)('the SIGN-IN-WITH-X payload of @x402/extensions on $name', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ backend, config: { publicUrl: ORIGIN } });
  });
  afterAll(() => t.close());

  const balanceOf = (address: string, header: string) =>
    t.request(`/x402/balance/${address}`, { key: null, headers: { 'SIGN-IN-WITH-X': header } });

  test('an EVM payload from createSIWxPayload + encodeSIWxHeader (viem account) signs in; its nonce is single-use', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const header = encodeSIWxHeader(await createSIWxPayload(info('eip155:8453'), account, `${ORIGIN}/api/v1/chat/completions`));
    const res = await balanceOf(account.address, header);
    expect(res.status).toBe(200);
    expect((await res.json()).data).toMatchObject({ walletAddress: account.address, balanceUsd: 0 });
    const replay = await balanceOf(account.address, header);
    expect(replay.status).toBe(401);
    expect((await replay.json()).code).toBe('X402_SIGN_IN_NONCE_REUSED');
  });

  test('a Solana (SIWS) payload signs in with the legacy header name too', async () => {
    const signer = await solanaSigner();
    const payload = await createSIWxPayload(info(SOLANA), signer, `${ORIGIN}/api/v1/chat/completions`);
    const res = await t.request(`/x402/balance/${signer.publicKey}`, {
      key: null,
      headers: { 'X-Sign-In-With-X': encodeSIWxHeader(payload) },
    });
    expect(res.status).toBe(200);
    expect((await res.json()).data.walletAddress).toBe(signer.publicKey);
  });

  test('the same checks apply: domain, chain, issued-at window, signature, payload fields', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const refused = async (o: Partial<CompleteSIWxInfo>, code: string, tamper?: (p: Record<string, unknown>) => void) => {
      const payload = (await createSIWxPayload(info(o.chainId ?? 'eip155:8453', o), account, ORIGIN)) as Record<string, unknown>;
      tamper?.(payload);
      const res = await balanceOf(account.address, encodeSIWxHeader(payload as never));
      expect(res.status).toBe(401);
      expect((await res.json()).code).toBe(code);
    };
    // createSIWxPayload refuses a challenge of another origin, so these are edited after signing.
    await refused({}, 'X402_SIGN_IN_DOMAIN_MISMATCH', (p) => void (p.domain = 'evil.example'));
    await refused({}, 'X402_SIGN_IN_DOMAIN_MISMATCH', (p) => void (p.uri = 'https://evil.example/api'));
    await refused({ chainId: 'eip155:1' }, 'X402_SIGN_IN_UNSUPPORTED_CHAIN');
    await refused({ issuedAt: new Date(Date.now() - 600_000).toISOString() }, 'X402_SIGN_IN_EXPIRED');
    await refused({ issuedAt: new Date(Date.now() + 120_000).toISOString() }, 'X402_SIGN_IN_FUTURE_TIMESTAMP');
    await refused({}, 'X402_SIGN_IN_INVALID_SIGNATURE', (p) => void (p.statement = 'Something else'));
    await refused({}, 'X402_SIGN_IN_INVALID_PAYLOAD', (p) => void delete p.signature);
    await refused({}, 'X402_SIGN_IN_INVALID_PAYLOAD', (p) => void (p.type = 'rsa'));
  });
});

describe('the sign-in domain without SVC_PUBLIC_URL', () => {
  test('follows the port svc actually listens on, not a fixed localhost:8080', async () => {
    const storage = await EMBEDDED.storage();
    const kv = await EMBEDDED.kv();
    const config = parseConfig({ logLevel: 'silent', port: 0, host: '127.0.0.1', abuseGuard: { enabled: false } });
    const deps = await createDeps(config, { storage, kv });
    await bootstrapAdminKey(storage.db, config.bootstrapCreditUsd);
    const app = createApp(deps);
    app.listen({ port: 0, hostname: '127.0.0.1' });
    try {
      const port = app.server?.port as number;
      expect(port).toBeGreaterThan(0);
      const wallet = newEvmWallet();
      const base = `http://127.0.0.1:${port}/api/v1/x402/balance/${wallet.address}`;
      const signIn = (domain: string) => evmSignIn(wallet, { domain, uri: `http://${domain}` });
      const ok = await fetch(base, { headers: { 'SIGN-IN-WITH-X': await signIn(`localhost:${port}`) } });
      expect(ok.status).toBe(200);
      const viaIp = await fetch(base, { headers: { 'SIGN-IN-WITH-X': await signIn(`127.0.0.1:${port}`) } });
      expect(viaIp.status).toBe(200);
      const fixed = await fetch(base, { headers: { 'SIGN-IN-WITH-X': await signIn('localhost:8080') } });
      expect(fixed.status).toBe(401);
      expect((await fixed.json()).code).toBe('X402_SIGN_IN_DOMAIN_MISMATCH');
    } finally {
      await app.stop();
      await closeDeps(deps);
    }
  });
});
