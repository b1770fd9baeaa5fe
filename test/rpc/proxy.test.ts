import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startRpcNode, type RpcNodeFixture } from '../fixtures/rpc-node';
import { startTestApp, type TestApp } from '../helpers/app';
import { BACKENDS } from '../helpers/backends';
import { call, entriesOf, linesOf, newCaller, rpc, usdOf } from './helpers';

const ADDRESS = '0x00000000000000000000000000000000000000a1';

for (const backend of BACKENDS) {
  describe(`crypto RPC proxy on ${backend.name}`, () => {
    let t: TestApp;
    const nodes: Record<string, RpcNodeFixture> = {};
    beforeAll(async () => {
      for (const name of ['eth', 'failA', 'failB', 'base', 'stark', 'zk', 'down1', 'down2', 'slow', 'fast'])
        nodes[name] = startRpcNode(name === 'stark' ? 'starknet' : 'evm');
      nodes.eth!.balances.set(ADDRESS, 10n ** 18n);
      t = await startTestApp({
        backend,
        config: {
          rpc: {
            simulator: true,
            timeoutMs: 300,
            unhealthyMs: 600_000,
            maxResponseBytes: 1024 * 1024,
            networks: [
              { id: 'ethereum-mainnet', family: 'evm', urls: [nodes.eth!.url] },
              { id: 'arbitrum-mainnet', family: 'evm', urls: [nodes.failA!.url, nodes.failB!.url] },
              { id: 'base-mainnet', family: 'evm', urls: [nodes.base!.url] },
              { id: 'starknet-mainnet', family: 'starknet', urls: [nodes.stark!.url] },
              { id: 'zksync-mainnet', family: 'zksync', urls: [nodes.zk!.url] },
              { id: 'polygon-mainnet', family: 'evm', urls: [nodes.down1!.url, nodes.down2!.url] },
              { id: 'optimism-mainnet', family: 'evm', urls: [nodes.slow!.url, nodes.fast!.url] },
            ],
          },
        },
      });
    });
    afterAll(async () => {
      await t.close();
      for (const n of Object.values(nodes)) n.close();
    });

    test('GET /crypto/rpc/networks is public and sorted', async () => {
      const res = await t.request('/crypto/rpc/networks', { key: null });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        networks: [
          'arbitrum-mainnet',
          'base-mainnet',
          'ethereum-mainnet',
          'optimism-mainnet',
          'polygon-mainnet',
          'starknet-mainnet',
          'svc-sim-mainnet',
          'zksync-mainnet',
        ],
      });
    });

    test('a single call: the node answer as it wrote it, credits and cost headers, one ledger row', async () => {
      const { accountId, key } = await newCaller(t);
      const before = await usdOf(t, accountId);
      const res = await rpc(t, 'ethereum-mainnet', call(7, 'eth_getBalance', [ADDRESS, 'latest']), { key });
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('{"jsonrpc":"2.0","id":7,"result":"0xde0b6b3a7640000"}');
      expect(res.headers.get('x-svc-rpc-credits')).toBe('20');
      // 20 credits at $0.0000007: 14 micro-USD.
      expect(res.headers.get('x-svc-rpc-cost-usd')).toBe('0.00001400');
      expect(res.headers.get('idempotent-replayed')).toBeNull();
      expect(res.headers.get('x-request-id')).toBeString();
      expect(res.headers.get('x-ratelimit-limit-requests')).toBe('100');
      expect(await usdOf(t, accountId)).toBe(before - 14);
      const lines = await linesOf(t, res.headers.get('cf-ray'));
      expect(lines).toMatchObject([{ sku: 'rpc-ethereum-mainnet-20cr', units: '1', amountMicros: -14, modelId: null }]);
    });

    test('a batch keeps the request order and ids, passes RPC errors with HTTP 200, and bills each call (errors at 5 credits)', async () => {
      const { accountId, key } = await newCaller(t);
      const batch = [
        call('a', 'eth_blockNumber'),
        call(2, 'eth_call', [{ to: ADDRESS, data: '0x' }, 'latest']),
        call(3, 'eth_getLogs', [{}]),
      ];
      const res = await rpc(t, 'ethereum-mainnet', batch, { key });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { id: unknown; result?: unknown; error?: { code: number } }[];
      // The fixture answers batches in reverse order; the proxy restores the request's.
      expect(body.map((b) => b.id)).toEqual(['a', 2, 3]);
      expect(body[0]!.result).toBe('0x121eac0');
      expect(body[1]!.error).toMatchObject({ code: 3, message: 'execution reverted' });
      expect(body[2]!.error).toMatchObject({ code: -32601 });
      // eth_blockNumber 20 + two errors at 5.
      expect(res.headers.get('x-svc-rpc-credits')).toBe('30');
      const entries = await entriesOf(t, accountId);
      expect(entries).toHaveLength(1);
      const lines = await linesOf(t, res.headers.get('cf-ray'));
      expect(lines.map((l) => [l.sku, l.units, l.amountMicros]).sort()).toEqual([
        ['rpc-ethereum-mainnet-20cr', '1', -14],
        ['rpc-ethereum-mainnet-5cr', '2', -8],
      ]);
    });

    test('a batch of 3 successful calls is billed as 3 calls; tiers 2× and 4× cost 40 and 80 credits', async () => {
      const { key } = await newCaller(t);
      const res = await rpc(
        t,
        'ethereum-mainnet',
        [call(1, 'eth_chainId'), call(2, 'eth_blockNumber'), call(3, 'eth_getBalance', [ADDRESS])],
        { key },
      );
      expect(res.headers.get('x-svc-rpc-credits')).toBe('60');
      expect(await linesOf(t, res.headers.get('cf-ray'))).toMatchObject([
        { sku: 'rpc-ethereum-mainnet-20cr', units: '3', amountMicros: -42 },
      ]);
      // trace_block (2×) and trace_replayTransaction (4×) reserve 40 and 80; the fixture answers them with errors (5 each).
      const heavy = await rpc(
        t,
        'ethereum-mainnet',
        [call(1, 'trace_block', ['latest']), call(2, 'trace_replayTransaction', ['0x01', ['trace']])],
        { key },
      );
      expect(heavy.headers.get('x-svc-rpc-credits')).toBe('10');
    });

    test('zkSync calls cost 30 credits; Starknet and zkSync methods go to their own families', async () => {
      const { key } = await newCaller(t);
      const zk = await rpc(t, 'zksync-mainnet', call(1, 'eth_chainId'), { key });
      expect(zk.status).toBe(200);
      expect(zk.headers.get('x-svc-rpc-credits')).toBe('30');
      expect(zk.headers.get('x-svc-rpc-cost-usd')).toBe('0.00002100');
      const stark = await rpc(t, 'starknet-mainnet', [call(1, 'starknet_chainId'), call(2, 'starknet_blockNumber')], { key });
      expect(await stark.json()).toEqual([
        { jsonrpc: '2.0', id: 1, result: '0x1' },
        { jsonrpc: '2.0', id: 2, result: 19_000_000 },
      ]);
      expect(stark.headers.get('x-svc-rpc-credits')).toBe('40');
    });

    test('bad input is a 400 DetailedError naming the field, and reaches no node', async () => {
      const { key } = await newCaller(t);
      const seen = nodes.eth!.bodies.length;
      const cases: [string, unknown, string][] = [
        ['no-such-net', call(1, 'eth_chainId'), 'network'],
        ['ethereum-mainnet', '', 'body'],
        ['ethereum-mainnet', '{"jsonrpc":', 'body'],
        ['ethereum-mainnet', '"eth_chainId"', 'body'],
        ['ethereum-mainnet', [], 'body'],
        ['ethereum-mainnet', Array.from({ length: 101 }, (_, i) => call(i, 'eth_chainId')), 'body'],
        ['ethereum-mainnet', { jsonrpc: '1.0', id: 1, method: 'eth_chainId' }, 'jsonrpc'],
        ['ethereum-mainnet', { jsonrpc: '2.0', id: 1 }, 'method'],
        ['ethereum-mainnet', { jsonrpc: '2.0', method: 'eth_chainId' }, 'id'],
        ['ethereum-mainnet', '{"jsonrpc":"2.0","id":1e400,"method":"eth_chainId"}', 'id'],
        ['ethereum-mainnet', { jsonrpc: '2.0', id: 1, method: 'eth_chainId', extra: true }, 'extra'],
        ['ethereum-mainnet', '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","__proto__":{}}', '__proto__'],
        ['ethereum-mainnet', call(1, 'eth_subscribe', ['newHeads']), 'method'],
        ['ethereum-mainnet', call(1, 'starknet_call', []), 'method'],
        ['ethereum-mainnet', call(1, 'zks_L1ChainId'), 'method'],
        ['ethereum-mainnet', call(1, 'admin_peers'), 'method'],
        ['ethereum-mainnet', call(1, 'eth_newFilter', [{}]), 'method'],
        ['ethereum-mainnet', [call(1, 'eth_chainId'), call(2, 'eth_unsubscribe', ['0x1'])], '1'],
        ['ethereum-mainnet', [call(1, 'eth_chainId'), call(1, 'eth_blockNumber')], '1'],
        ['starknet-mainnet', call(1, 'eth_getBalance', [ADDRESS]), 'method'],
        ['ethereum-mainnet', `[${'['.repeat(5000)}${']'.repeat(5000)}]`, '0'],
      ];
      for (const [network, body, field] of cases) {
        const res = await rpc(t, network, body, { key });
        const json = (await res.json()) as { error: string; details?: Record<string, unknown> };
        expect({ network, body, status: res.status }).toEqual({ network, body, status: 400 });
        expect(json.error).toContain(field);
        expect(json.details).toHaveProperty(field);
      }
      expect(nodes.eth!.bodies.length).toBe(seen);
      const crossFamily = await rpc(t, 'ethereum-mainnet', call(1, 'starknet_call', []), { key });
      expect((await crossFamily.json()).error).toContain('Starknet method');
      // A batch is refused whole, naming every refused method.
      const batch = [call(1, 'eth_chainId'), call(2, 'eth_subscribe', ['newHeads']), call(3, 'eth_blockNumber'), call(4, 'starknet_call')];
      const refused = await rpc(t, 'ethereum-mainnet', batch, { key });
      expect(refused.status).toBe(400);
      const { error, details } = await refused.json();
      expect(error).toContain('1.method');
      expect(error).toContain('3.method');
      expect(Object.keys(details).sort()).toEqual(['1', '3', '_errors']);
    });

    test('a 1 MB run of letters is a 400 naming the field; a body over rpc.maxRequestBytes (4 MiB) is a 413', async () => {
      const { key } = await newCaller(t);
      const letters = await rpc(t, 'ethereum-mainnet', { ...call(1, 'eth_chainId'), note: 'a'.repeat(1_000_000) }, { key });
      expect(letters.status).toBe(400);
      expect((await letters.json()).details).toHaveProperty('note');
      const raw = await rpc(t, 'ethereum-mainnet', 'a'.repeat(1_000_000), { key });
      expect(raw.status).toBe(400);
      const big = await rpc(t, 'ethereum-mainnet', call(1, 'eth_sendRawTransaction', [`0x${'ab'.repeat(2 * 1024 * 1024)}`]), { key });
      expect(big.status).toBe(413);
      expect((await big.json()).error).toContain('4194304');
    });

    test('authentication: no key or a wrong key is a 401, and nothing reaches a node', async () => {
      const seen = nodes.eth!.bodies.length;
      expect((await rpc(t, 'ethereum-mainnet', call(1, 'eth_chainId'), { key: null })).status).toBe(401);
      expect((await rpc(t, 'ethereum-mainnet', call(1, 'eth_chainId'), { key: 'svc-not-a-key' })).status).toBe(401);
      expect(nodes.eth!.bodies.length).toBe(seen);
    });

    test('an account without balance gets a 402 before any node is asked', async () => {
      const { key } = await newCaller(t, '0');
      const seen = nodes.eth!.bodies.length;
      const res = await rpc(t, 'ethereum-mainnet', call(1, 'eth_chainId'), { key });
      expect(res.status).toBe(402);
      expect(nodes.eth!.bodies.length).toBe(seen);
    });

    test('failover: a failing node is skipped for a while, the call succeeds on the next one', async () => {
      const { accountId, key } = await newCaller(t);
      nodes.failA!.mode = 'http500';
      nodes.failB!.mode = 'http500';
      // Both down: a clear 502, nothing charged.
      const before = await usdOf(t, accountId);
      const down = await rpc(t, 'arbitrum-mainnet', call(1, 'eth_chainId'), { key });
      expect(down.status).toBe(502);
      expect((await down.json()).error).toContain('no node of arbitrum-mainnet answered');
      nodes.failB!.mode = 'ok';
      // Both are now skipped; B recovers and is tried (after A, which failed first and so recovers first).
      const res = await rpc(t, 'arbitrum-mainnet', call(2, 'eth_chainId'), { key });
      expect(res.status).toBe(200);
      const seenA = nodes.failA!.bodies.length;
      for (let i = 0; i < 3; i++) expect((await rpc(t, 'arbitrum-mainnet', call(3 + i, 'eth_chainId'), { key })).status).toBe(200);
      // A stays skipped: B answered all three.
      expect(nodes.failA!.bodies.length).toBe(seenA);
      expect(await usdOf(t, accountId)).toBe(before - 4 * 14);
      expect(await entriesOf(t, accountId)).toHaveLength(4);
    });

    test('two nodes, one slow: the call that meets it is answered by the other, and later calls skip it', async () => {
      const { accountId, key } = await newCaller(t);
      nodes.slow!.mode = 'hang';
      const answers = [];
      for (let i = 0; i < 4; i++) answers.push(await rpc(t, 'optimism-mainnet', call(i, 'eth_blockNumber'), { key }));
      expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200]);
      // Round robin would have sent two of the four to the slow node; it was asked once.
      expect(nodes.slow!.bodies).toHaveLength(1);
      expect(nodes.fast!.bodies).toHaveLength(4);
      expect(await entriesOf(t, accountId)).toHaveLength(4);
    });

    test('keep-alive: consecutive calls to a node reuse one connection', async () => {
      const { key } = await newCaller(t);
      const from = nodes.base!.ports.length;
      for (let i = 0; i < 4; i++) expect((await rpc(t, 'base-mainnet', call(i, 'eth_chainId'), { key })).status).toBe(200);
      expect(new Set(nodes.base!.ports.slice(from)).size).toBe(1);
    });

    for (const mode of ['hang', 'garbage', 'wrong-id', 'huge', 'http500', 'truncated'] as const)
      test(`a node that is ${mode}: 502 with a clear error, nothing charged`, async () => {
        const { accountId, key } = await newCaller(t);
        nodes.down1!.mode = mode;
        nodes.down2!.mode = mode;
        const before = await usdOf(t, accountId);
        const res = await rpc(t, 'polygon-mainnet', [call(1, 'eth_chainId'), call(2, 'eth_blockNumber')], { key });
        expect(res.status).toBe(502);
        const { error } = (await res.json()) as { error: string };
        expect(error).toContain('nothing was charged');
        expect(error).toContain(
          {
            hang: 'did not answer within 300 ms',
            garbage: 'not JSON-RPC',
            'wrong-id': 'not JSON-RPC',
            truncated: 'not JSON-RPC',
            huge: 'larger than',
            http500: 'HTTP 500',
          }[mode],
        );
        expect(await usdOf(t, accountId)).toBe(before);
        expect(await entriesOf(t, accountId)).toHaveLength(0);
      });

    test('the simulated network answers reads deterministically and says it is simulated', async () => {
      const { key } = await newCaller(t);
      const body = [
        call(1, 'eth_chainId'),
        call(2, 'eth_getBalance', [ADDRESS, 'latest']),
        call(3, 'eth_call', [{ to: ADDRESS, data: '0x70a08231' }]),
      ];
      const a = await rpc(t, 'svc-sim-mainnet', body, { key });
      const b = await rpc(t, 'svc-sim-mainnet', body, { key });
      expect(a.headers.get('x-svc-simulated')).toBe('true');
      const answers = (await a.json()) as { result: string }[];
      expect(answers[0]!.result).toBe('0x5356');
      expect(answers[1]!.result).toMatch(/^0x[0-9a-f]+$/);
      expect(answers[2]!.result).toMatch(/^0x[0-9a-f]{64}$/);
      expect(await b.json()).toEqual(answers);
    });
  });
}
