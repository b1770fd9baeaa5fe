import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { FetchRequest, JsonRpcProvider } from 'ethers';
import { ensureWalletAccount } from '../../src/auth/wallet-accounts';
import { simulatedBalance } from '../../providers/rpc/simulated-node';
import { startRpcNode, type RpcNodeFixture } from '../fixtures/rpc-node';
import { startTestApp, type TestApp } from '../helpers/app';
import { BACKENDS } from '../helpers/backends';
import { evmSignIn } from '../wallet/sign';
import { newPayer, ORIGIN, startPaymentsApp } from '../x402/helpers';
import { call, entriesOf, newCaller, usdOf } from './helpers';
import { rejectionOf } from '../helpers/rejection';

const HOLDER = '0x00000000000000000000000000000000000000b2';

for (const backend of BACKENDS) {
  describe(`crypto RPC with real clients on ${backend.name}`, () => {
    let t: TestApp;
    let node: RpcNodeFixture;
    let base = '';
    beforeAll(async () => {
      node = startRpcNode('evm', 1);
      node.balances.set(HOLDER, 1_500_000_000_000_000_000n);
      t = await startTestApp({
        backend,
        config: { rpc: { simulator: true, networks: [{ id: 'ethereum-mainnet', family: 'evm', urls: [node.url] }] } },
      });
      t.app.listen({ port: 0, hostname: '127.0.0.1' });
      base = `http://127.0.0.1:${t.app.server!.port}/api/v1`;
    });
    afterAll(async () => {
      await t.app.stop();
      await t.close();
      node.close();
    });

    /** ethers' JsonRpcProvider pointed at svc with the key in a header. */
    function provider(network: string, key: string, chainId: number) {
      const request = new FetchRequest(`${base}/crypto/rpc/${network}`);
      request.setHeader('authorization', `Bearer ${key}`);
      return new JsonRpcProvider(request, chainId, { staticNetwork: true });
    }

    test("ethers' JsonRpcProvider reads a block number and a balance through a fixture node, each call billed", async () => {
      const { accountId, key } = await newCaller(t);
      const p = provider('ethereum-mainnet', key, 1);
      try {
        expect(await p.getBlockNumber()).toBe(19_000_000);
        expect(await p.getBalance(HOLDER)).toBe(1_500_000_000_000_000_000n);
        expect(Number((await p.getNetwork()).chainId)).toBe(1);
      } finally {
        p.destroy();
      }
      expect(node.bodies.some((b) => b.includes('eth_getBalance'))).toBe(true);
      const charges = await entriesOf(t, accountId);
      expect(charges.length).toBeGreaterThanOrEqual(2);
      // 20 credits (14 micro-USD) per call, however ethers batched them.
      const calls = charges.flatMap((c) => c.lines).reduce((n, l) => n + Number(l.units), 0);
      expect(await usdOf(t, accountId)).toBe(10_000_000 - calls * 14);
    });

    test('ethers reads the simulated network on a fresh start (no node)', async () => {
      const { key } = await newCaller(t);
      const p = provider('svc-sim-mainnet', key, 0x5356);
      try {
        expect(await p.getBlockNumber()).toBeGreaterThan(0);
        expect(await p.getBalance(HOLDER)).toBe(simulatedBalance(HOLDER));
      } finally {
        p.destroy();
      }
    });

    test('a JSON-RPC error reaches ethers as its error, not as an HTTP failure', async () => {
      const { key } = await newCaller(t);
      const p = provider('ethereum-mainnet', key, 1);
      try {
        expect((await rejectionOf(p.call({ to: HOLDER, data: '0x' }))).message).toMatch(/revert/i);
      } finally {
        p.destroy();
      }
    });
  });

  describe(`crypto RPC for a signed-in wallet on ${backend.name}`, () => {
    let s: Awaited<ReturnType<typeof startPaymentsApp>>;
    beforeAll(async () => {
      s = await startPaymentsApp(backend, {}, { rpc: { simulator: true } });
    });
    afterAll(() => s.close());

    test('SIGN-IN-WITH-X authenticates; the charge comes off the USDC balance and X-Balance-Remaining shows what is left', async () => {
      const payer = newPayer();
      const account = await ensureWalletAccount(s.t.deps.storage.db, payer.account.address, 'evm');
      await s.t.deps.meter.credit({
        accountId: account.id,
        currency: 'USDC',
        amountMicros: 1_000_000,
        requestId: `fund-${account.id}`,
        kind: 'TOP_UP',
      });
      const res = await s.t.request('/crypto/rpc/svc-sim-mainnet', {
        method: 'POST',
        key: null,
        headers: {
          'content-type': 'application/json',
          'SIGN-IN-WITH-X': await evmSignIn(payer.wallet as never, { domain: 'localhost', uri: ORIGIN }),
        },
        body: JSON.stringify([call(1, 'eth_chainId'), call(2, 'eth_blockNumber')]),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-svc-rpc-credits')).toBe('40');
      expect(res.headers.get('x-balance-remaining')).toBe('0.999972');
      expect((await s.t.deps.meter.balances(account.id)).USDC).toBe(1_000_000 - 28);
    });
  });
}
