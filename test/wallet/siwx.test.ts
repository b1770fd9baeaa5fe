import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { and, eq } from 'drizzle-orm';
import { Elysia } from 'elysia';
import { createWalletAuthenticator } from '../../src/auth/siwx/authenticator';
import { allowedDomains, parseWalletsConfig } from '../../src/auth/wallet-config';
import { accounts, balances } from '../../src/db/schema';
import { authGate } from '../../src/gates/auth';
import { requestIdGate } from '../../src/gates/request-id';
import { errorHandler } from '../../src/http/error-handler';
import { startTestApp, type TestApp } from '../helpers/app';
import { BACKENDS } from '../helpers/backends';
import { DOMAIN, PUBLIC_URL, encodeHeader, evmSignIn, newEvmWallet, newSolanaWallet, siweText, solanaSignIn, solanaText } from './sign';

describe.each(BACKENDS)('SIGN-IN-WITH-X on $name', (backend) => {
  let t: TestApp;
  let probe: ReturnType<typeof buildProbe>;
  const clock = { now: Date.now() };

  /** The real gate and authenticator on an INFERENCE and an ADMIN route that echo the caller. */
  function buildProbe() {
    const wallets = parseWalletsConfig(t.deps.config);
    const wallet = createWalletAuthenticator({
      db: t.deps.storage.db,
      kv: t.deps.kv,
      now: t.deps.now,
      siwx: wallets.siwx,
      domains: allowedDomains(t.deps.config, wallets),
    });
    return new Elysia()
      .use(requestIdGate)
      .use(errorHandler(t.deps.log))
      .use(authGate({ keys: t.deps.keys, now: t.deps.now, wallet }))
      .post('/inference', ({ svc }) => svc.caller, { authenticate: 'INFERENCE' })
      .get('/admin', () => ({ ok: true }), { authenticate: 'ADMIN' });
  }

  beforeAll(async () => {
    t = await startTestApp({ backend, now: () => clock.now, config: { publicUrl: PUBLIC_URL } });
    probe = buildProbe();
  });
  afterAll(() => t.close());

  async function signIn(header: string, path = '/inference', name = 'SIGN-IN-WITH-X') {
    const res = await probe.handle(
      new Request(`http://localhost${path}`, { method: path === '/admin' ? 'GET' : 'POST', headers: { [name]: header } }),
    );
    return { status: res.status, body: await res.json(), headers: res.headers };
  }
  async function refused(header: string, code: string) {
    const res = await signIn(header);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: expect.stringContaining('Invalid sign-in'), code });
  }

  test('an EVM (SIWE) sign-in authenticates an inference request and creates the wallet account with a USDC balance', async () => {
    const wallet = newEvmWallet();
    const res = await signIn(await evmSignIn(wallet, { now: clock.now }));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      via: 'wallet',
      tier: 'standard',
      apiKey: null,
      wallet: { address: wallet.address.toLowerCase(), chain: 'evm' },
    });
    const db = t.deps.storage.db;
    const [account] = await db.select().from(accounts).where(eq(accounts.id, res.body.accountId));
    expect(account).toMatchObject({ kind: 'wallet', walletAddress: wallet.address.toLowerCase(), walletChain: 'evm' });
    const usdc = await db
      .select()
      .from(balances)
      .where(and(eq(balances.accountId, account!.id), eq(balances.currency, 'USDC')));
    expect(usdc).toHaveLength(1);
    // A second sign-in (fresh nonce, legacy header name, CAIP chain id) lands on the same account.
    const again = await signIn(await evmSignIn(wallet, { now: clock.now, chainId: 'eip155:8453' }), '/inference', 'X-Sign-In-With-X');
    expect(again.status).toBe(200);
    expect(again.body.accountId).toBe(account!.id);
  });

  test('a Solana sign-in (Ed25519, base58 or base64 signature) authenticates', async () => {
    const wallet = await newSolanaWallet();
    const res = await signIn(await solanaSignIn(wallet, { now: clock.now }));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ via: 'wallet', wallet: { address: wallet.address, chain: 'solana' } });
    const b64 = await signIn(
      await solanaSignIn(wallet, { now: clock.now, encoding: 'base64', messageChainId: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp' }),
    );
    expect(b64.status).toBe(200);
    expect(b64.body.accountId).toBe(res.body.accountId);
  });

  test('through the app: a signed-in wallet passes the gate and gets x-auth-refreshed: false', async () => {
    const header = await evmSignIn(newEvmWallet(), { now: clock.now });
    const res = await t.request('/models', { key: null, headers: { 'SIGN-IN-WITH-X': header } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-auth-refreshed')).toBe('false');
    const replay = await t.request('/models', { key: null, headers: { 'SIGN-IN-WITH-X': header } });
    expect(replay.status).toBe(401);
    expect((await replay.json()).code).toBe('X402_SIGN_IN_NONCE_REUSED');
  });

  test('a SIWE and a Solana sign-in each authenticate POST /chat/completions, paid from USDC; a replay is refused', async () => {
    const chat = (header: string) =>
      t.request('/chat/completions', {
        method: 'POST',
        key: null,
        headers: { 'SIGN-IN-WITH-X': header },
        json: { model: 'llama-3.3-70b', messages: [{ role: 'user', content: 'hi' }] },
      });
    const evm = newEvmWallet();
    const sol = await newSolanaWallet();
    const wallets = [
      { address: evm.address.toLowerCase(), sign: () => evmSignIn(evm, { now: clock.now }) },
      { address: sol.address, sign: () => solanaSignIn(sol, { now: clock.now }) },
    ];
    for (const w of wallets) {
      // The first sign-in creates the wallet's account; it holds no USDC yet.
      const broke = await chat(await w.sign());
      expect(broke.status).toBe(402);
      expect((await broke.json()).code).toBe('PAYMENT_REQUIRED');
      const [account] = await t.deps.storage.db.select({ id: accounts.id }).from(accounts).where(eq(accounts.walletAddress, w.address));
      expect(
        await t.deps.meter.credit({ accountId: account!.id, currency: 'USDC', amountMicros: 1_000_000, requestId: `topup-${w.address}` }),
      ).toBe(true);

      const header = await w.sign();
      const res = await chat(header);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-auth-refreshed')).toBe('false');
      const answer = await res.json();
      expect(answer.choices[0].message.content).toBeString();
      // What is left after this answer's own cost.
      expect(res.headers.get('x-balance-remaining')).toBe((1 - answer.cost.usd).toFixed(6));
      const replay = await chat(header);
      expect(replay.status).toBe(401);
      expect((await replay.json()).code).toBe('X402_SIGN_IN_NONCE_REUSED');
    }
  });

  test('a replayed nonce is refused, also when the replays race', async () => {
    const evm = await evmSignIn(newEvmWallet(), { now: clock.now });
    const statuses = (await Promise.all(Array.from({ length: 6 }, () => signIn(evm)))).map((r) => r.status).sort();
    expect(statuses).toEqual([200, 401, 401, 401, 401, 401]);
    await refused(evm, 'X402_SIGN_IN_NONCE_REUSED');
    const sol = await solanaSignIn(await newSolanaWallet(), { now: clock.now });
    expect((await signIn(sol)).status).toBe(200);
    await refused(sol, 'X402_SIGN_IN_NONCE_REUSED');
  });

  test('tampered messages and signatures are refused', async () => {
    const wallet = newEvmWallet();
    const message = siweText(wallet.address, { now: clock.now });
    const signature = await wallet.signMessage(message);
    const tampered = message.replace('Sign in to svc API', 'Sign in to svc API and pay');
    const base = { address: wallet.address, signature, timestamp: clock.now, chainId: 8453 };
    await refused(encodeHeader({ ...base, message: tampered }), 'X402_SIGN_IN_INVALID_SIGNATURE');
    await refused(encodeHeader({ ...base, message, signature: `${signature.slice(0, -4)}0000` }), 'X402_SIGN_IN_INVALID_SIGNATURE');
    await refused(await evmSignIn(wallet, { now: clock.now, signer: newEvmWallet() }), 'X402_SIGN_IN_INVALID_SIGNATURE');
    const sol = await newSolanaWallet();
    await refused(
      await solanaSignIn(sol, { now: clock.now, signerKey: (await newSolanaWallet()).secretKey }),
      'X402_SIGN_IN_INVALID_SIGNATURE',
    );
    const solMessage = solanaText(sol.address, { now: clock.now });
    const signed = JSON.parse(Buffer.from(await solanaSignIn(sol, { message: solMessage, now: clock.now }), 'base64').toString());
    await refused(encodeHeader({ ...signed, message: solMessage.replace('svc API', 'svc APJ') }), 'X402_SIGN_IN_INVALID_SIGNATURE');
  });

  test('expired, future-dated, not-yet-valid and mistimed sign-ins are refused', async () => {
    const wallet = newEvmWallet();
    const sol = await newSolanaWallet();
    const sixMinutesAgo = clock.now - 6 * 60_000;
    await refused(await evmSignIn(wallet, { now: clock.now, issuedAt: sixMinutesAgo }), 'X402_SIGN_IN_EXPIRED');
    await refused(await solanaSignIn(sol, { now: clock.now, issuedAt: sixMinutesAgo }), 'X402_SIGN_IN_EXPIRED');
    await refused(await evmSignIn(wallet, { now: clock.now, issuedAt: clock.now - 60_000, expiresInMs: 30_000 }), 'X402_SIGN_IN_EXPIRED');
    await refused(await evmSignIn(wallet, { now: clock.now, issuedAt: clock.now + 60_000 }), 'X402_SIGN_IN_FUTURE_TIMESTAMP');
    await refused(await solanaSignIn(sol, { now: clock.now, issuedAt: clock.now + 60_000 }), 'X402_SIGN_IN_FUTURE_TIMESTAMP');
    await refused(await evmSignIn(wallet, { now: clock.now, notBefore: clock.now + 60_000 }), 'X402_SIGN_IN_NOT_BEFORE');
    await refused(await evmSignIn(wallet, { now: clock.now, timestamp: clock.now - 120_000 }), 'X402_SIGN_IN_TIMESTAMP_MISMATCH');
    // Small clock skew is tolerated: 20 s ahead passes.
    expect((await signIn(await evmSignIn(wallet, { now: clock.now, issuedAt: clock.now + 20_000 }))).status).toBe(200);
  });

  test('a message for another domain or URI is refused', async () => {
    const wallet = newEvmWallet();
    await refused(await evmSignIn(wallet, { now: clock.now, domain: 'evil.example' }), 'X402_SIGN_IN_DOMAIN_MISMATCH');
    await refused(await evmSignIn(wallet, { now: clock.now, uri: 'https://evil.example/login' }), 'X402_SIGN_IN_DOMAIN_MISMATCH');
    await refused(await solanaSignIn(await newSolanaWallet(), { now: clock.now, domain: 'evil.example' }), 'X402_SIGN_IN_DOMAIN_MISMATCH');
    expect((await signIn(await evmSignIn(wallet, { now: clock.now, uri: `https://${DOMAIN}/api/v1/chat/completions` }))).status).toBe(200);
  });

  test('wrong, mismatched and unsupported chains are refused', async () => {
    const wallet = newEvmWallet();
    await refused(await evmSignIn(wallet, { now: clock.now, chainId: 1, messageChainId: 1 }), 'X402_SIGN_IN_UNSUPPORTED_CHAIN');
    await refused(await evmSignIn(wallet, { now: clock.now, chainId: 8453, messageChainId: 1 }), 'X402_SIGN_IN_CHAIN_MISMATCH');
    await refused(await evmSignIn(wallet, { now: clock.now, chainId: 'base-mainnet' }), 'X402_SIGN_IN_INVALID_CHAIN_ID');
    const sol = await newSolanaWallet();
    await refused(
      await solanaSignIn(sol, { now: clock.now, chainId: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1' }),
      'X402_SIGN_IN_UNSUPPORTED_CHAIN',
    );
    await refused(await solanaSignIn(sol, { now: clock.now, messageChainId: 'devnet' }), 'X402_SIGN_IN_CHAIN_MISMATCH');
  });

  test('malformed headers, bad addresses and missing nonces are refused with their codes', async () => {
    await refused('%%%not base64 json%%%', 'X402_SIGN_IN_PARSE_ERROR');
    await refused(encodeHeader({ address: '0xabc', message: 'hi' }), 'X402_SIGN_IN_INVALID_PAYLOAD');
    const wallet = newEvmWallet();
    await refused(await evmSignIn(wallet, { now: clock.now, address: '0x1234' }), 'X402_SIGN_IN_INVALID_WALLET');
    await refused(await evmSignIn(wallet, { now: clock.now, address: newEvmWallet().address }), 'X402_SIGN_IN_ADDRESS_MISMATCH');
    await refused(await evmSignIn(wallet, { now: clock.now, message: 'hello world' }), 'X402_SIGN_IN_INVALID_MESSAGE');
    await refused(await solanaSignIn(await newSolanaWallet(), { now: clock.now, nonce: null }), 'X402_SIGN_IN_MISSING_NONCE');
    await refused(
      await solanaSignIn(await newSolanaWallet(), { now: clock.now, address: 'not-base58-0OIl' }),
      'X402_SIGN_IN_INVALID_WALLET',
    );
  });

  test('ADMIN routes refuse a signed-in wallet without burning its nonce', async () => {
    const header = await evmSignIn(newEvmWallet(), { now: clock.now });
    const admin = await signIn(header, '/admin');
    expect(admin.status).toBe(401);
    expect(admin.body.error).toContain('ADMIN');
    expect((await t.request('/api_keys', { key: null, headers: { 'SIGN-IN-WITH-X': header } })).status).toBe(401);
    expect((await signIn(header)).status).toBe(200);
  });

  test('a bearer key still takes precedence and works as before', async () => {
    const res = await probe.handle(
      new Request('http://localhost/inference', {
        method: 'POST',
        headers: { authorization: `Bearer ${t.adminKey}`, 'SIGN-IN-WITH-X': 'garbage' },
      }),
    );
    expect(res.status).toBe(200);
    expect((await res.json()).via).toBe('api_key');
  });
});
