import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { generateKeyPairSigner } from '@solana/kit';
import { x402Client } from '@x402/core/client';
import { ExactSvmScheme } from '@x402/svm/exact/client';
import { decodePaymentResponseHeader, wrapFetchWithPayment } from '@x402/fetch';
import { eq } from 'drizzle-orm';
import { accounts, ledgerLines } from '../../src/db/schema';
import { BACKENDS } from '../helpers/backends';
import { appFetch, ORIGIN, startPaymentsApp, topUpRequest } from './helpers';

const USDC_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';

/** The SPL mint account layout (82 bytes) with 6 decimals, initialised. */
function mintAccountData(): string {
  const data = Buffer.alloc(82);
  data[44] = 6;
  data[45] = 1;
  return data.toString('base64');
}

/**
 * A fixture Solana JSON-RPC node on 127.0.0.1 answering what the @x402/svm client asks
 * before it signs: the USDC mint account (its decimals and token program) and a blockhash.
 */
function startSolanaRpc() {
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const { id, method, params } = (await request.json()) as { id: number; method: string; params: unknown[] };
      const reply = (result: unknown) => Response.json({ jsonrpc: '2.0', id, result });
      if (method === 'getAccountInfo' && params[0] === USDC_MINT)
        return reply({
          context: { slot: 1 },
          value: {
            data: [mintAccountData(), 'base64'],
            executable: false,
            lamports: 1_461_600,
            owner: TOKEN_PROGRAM,
            rentEpoch: 0,
            space: 82,
          },
        });
      if (method === 'getLatestBlockhash')
        return reply({
          context: { slot: 1 },
          value: { blockhash: 'EkSnNWid2cvwEVnVx9aBqawnmiCNiDgp3gUdkDPTKN1N', lastValidBlockHeight: 1000 },
        });
      return Response.json({ jsonrpc: '2.0', id, error: { code: -32601, message: `fixture: ${method} not served` } });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, stop: () => server.stop(true) };
}

describe.each(BACKENDS)('Solana top-ups on $name', (backend) => {
  let s: Awaited<ReturnType<typeof startPaymentsApp>>;
  let rpc: ReturnType<typeof startSolanaRpc>;
  beforeAll(async () => {
    s = await startPaymentsApp(backend);
    rpc = startSolanaRpc();
  });
  afterAll(async () => {
    await s.close();
    rpc.stop();
  });

  test('@x402/fetch with an @x402/svm signer from a fresh key pays USDC on Solana; the Solana wallet is credited once', async () => {
    const signer = await generateKeyPairSigner();
    const client = new x402Client()
      .register('solana:*', new ExactSvmScheme(signer, { rpcUrl: rpc.url }))
      .setSpendControls({ maxAmountPerPayment: '$100' });
    const pay = wrapFetchWithPayment(appFetch(s.t), client);
    const res = await pay(`${ORIGIN}/api/v1/x402/top-up`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '10.8.0.1' },
      body: JSON.stringify({ amountUsd: 12 }),
    });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.data).toMatchObject({ walletAddress: signer.address, amountCredited: 12, newBalance: 12 });
    const db = s.t.deps.storage.db;
    const [account] = await db.select().from(accounts).where(eq(accounts.walletAddress, signer.address));
    expect(account).toMatchObject({ kind: 'wallet', walletChain: 'solana' });
    const credits = await db
      .select()
      .from(ledgerLines)
      .where(eq(ledgerLines.requestId, `x402:${body.data.paymentId}`));
    expect(credits.map((c) => c.amountMicros)).toEqual([12_000_000]);
    expect(s.facilitator.settleCalls.at(-1)).toMatchObject({ amount: '12000000' });
  });

  test('the same signed Solana transaction sent twice is credited once', async () => {
    const signer = await generateKeyPairSigner();
    const res = await topUpRequest(s.t);
    const { accepts } = await res.json();
    const requirement = accepts.find((a: { network: string }) => a.network.startsWith('solana:'));
    const partial = await new ExactSvmScheme(signer, { rpcUrl: rpc.url }).createPaymentPayload(2, requirement);
    const header = Buffer.from(JSON.stringify({ ...partial, accepted: requirement })).toString('base64');
    expect((await topUpRequest(s.t, { header })).status).toBe(200);
    const again = await topUpRequest(s.t, { header });
    expect(again.status).toBe(409);
    expect((await again.json()).error).toBe('X402_PAYMENT_REPLAYED');
  });

  test('@x402/fetch alone with a Solana signer pays for a chat; the call is served from the Solana wallet', async () => {
    const signer = await generateKeyPairSigner();
    const pay = wrapFetchWithPayment(appFetch(s.t), new x402Client().register('solana:*', new ExactSvmScheme(signer, { rpcUrl: rpc.url })));
    const res = await pay(`${ORIGIN}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'llama-3.3-70b', messages: [{ role: 'user', content: 'hi' }], max_tokens: 8 }),
    });
    expect(res.status).toBe(200);
    expect(decodePaymentResponseHeader(res.headers.get('payment-response') as string)).toMatchObject({
      network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
      payer: signer.address,
    });
    const [account] = await s.t.deps.storage.db.select().from(accounts).where(eq(accounts.walletAddress, signer.address));
    const usdc = (await s.t.deps.meter.balances(account!.id)).USDC ?? 0;
    expect(usdc).toBeLessThan(250_000);
    expect(usdc).toBeGreaterThan(249_000);
  });
});
