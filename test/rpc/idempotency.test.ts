import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startRpcNode, type RpcNodeFixture } from '../fixtures/rpc-node';
import { startTestApp, type TestApp } from '../helpers/app';
import { BACKENDS } from '../helpers/backends';
import { call, entriesOf, newCaller, rpc, usdOf } from './helpers';

for (const backend of BACKENDS) {
  describe(`crypto RPC Idempotency-Key on ${backend.name}`, () => {
    let t: TestApp;
    let node: RpcNodeFixture;
    beforeAll(async () => {
      node = startRpcNode('evm');
      t = await startTestApp({
        backend,
        config: {
          rpc: {
            timeoutMs: 2_000,
            networks: [
              { id: 'ethereum-mainnet', family: 'evm', urls: [node.url] },
              { id: 'base-mainnet', family: 'evm', urls: [node.url] },
            ],
          },
        },
      });
    });
    afterAll(async () => {
      await t.close();
      node.close();
    });

    const key = () => `k-${crypto.randomUUID()}`;

    test('a replay returns the stored answer with Idempotent-Replayed: true and is not charged again', async () => {
      const { accountId, key: apiKey } = await newCaller(t);
      const headers = { 'idempotency-key': key() };
      const body = [call(1, 'eth_blockNumber'), call(2, 'eth_chainId')];
      const first = await rpc(t, 'ethereum-mainnet', body, { key: apiKey, headers });
      expect(first.status).toBe(200);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      const text = await first.text();
      const balance = await usdOf(t, accountId);
      const seen = node.bodies.length;
      node.blockNumber += 1;
      const again = await rpc(t, 'ethereum-mainnet', body, { key: apiKey, headers });
      expect(again.status).toBe(200);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.headers.get('x-svc-rpc-credits')).toBe(first.headers.get('x-svc-rpc-credits'));
      expect(again.headers.get('x-svc-rpc-cost-usd')).toBe(first.headers.get('x-svc-rpc-cost-usd'));
      expect(await again.text()).toBe(text);
      expect(node.bodies.length).toBe(seen);
      expect(await usdOf(t, accountId)).toBe(balance);
      expect(await entriesOf(t, accountId)).toHaveLength(1);
    });

    test('the same key with a different body, or on another network, is a 400; keys are per account', async () => {
      const a = await newCaller(t);
      const b = await newCaller(t);
      const headers = { 'idempotency-key': key() };
      expect((await rpc(t, 'ethereum-mainnet', call(1, 'eth_chainId'), { key: a.key, headers })).status).toBe(200);
      const mismatch = await rpc(t, 'ethereum-mainnet', call(2, 'eth_chainId'), { key: a.key, headers });
      expect(mismatch.status).toBe(400);
      const json = await mismatch.json();
      expect(json.error).toContain('Idempotency-Key');
      expect(json.details).toHaveProperty('Idempotency-Key');
      const elsewhere = await rpc(t, 'base-mainnet', call(1, 'eth_chainId'), { key: a.key, headers });
      expect(elsewhere.status).toBe(400);
      expect((await elsewhere.json()).error).toContain('Idempotency-Key');
      // Another account's same key is its own.
      const other = await rpc(t, 'ethereum-mainnet', call(2, 'eth_chainId'), { key: b.key, headers });
      expect(other.status).toBe(200);
      expect(other.headers.get('idempotent-replayed')).toBeNull();
    });

    test('a malformed key is a 400 naming the header', async () => {
      const { key: apiKey } = await newCaller(t);
      for (const bad of ['has space', 'a'.repeat(256), 'semi;colon', 'ünï']) {
        const res = await rpc(t, 'ethereum-mainnet', call(1, 'eth_chainId'), { key: apiKey, headers: { 'idempotency-key': bad } });
        expect(res.status).toBe(400);
        expect((await res.json()).error.toLowerCase()).toContain('idempotency-key');
      }
    });

    test('concurrent requests with the same key call the node once and are charged once', async () => {
      const { accountId, key: apiKey } = await newCaller(t);
      const headers = { 'idempotency-key': key() };
      const body = call('same', 'eth_getBalance', ['0x00000000000000000000000000000000000000a1', 'latest']);
      const seen = node.bodies.length;
      const answers = await Promise.all(Array.from({ length: 8 }, () => rpc(t, 'ethereum-mainnet', body, { key: apiKey, headers })));
      expect(answers.map((r) => r.status)).toEqual(Array(8).fill(200));
      const texts = await Promise.all(answers.map((r) => r.text()));
      expect(new Set(texts).size).toBe(1);
      expect(answers.filter((r) => r.headers.get('idempotent-replayed') === null)).toHaveLength(1);
      expect(node.bodies.length).toBe(seen + 1);
      expect(await entriesOf(t, accountId)).toHaveLength(1);
    });

    test('a failed call frees its key: nothing is stored or charged, and the retry runs', async () => {
      const { accountId, key: apiKey } = await newCaller(t);
      const headers = { 'idempotency-key': key() };
      const before = await usdOf(t, accountId);
      node.mode = 'http500';
      try {
        expect((await rpc(t, 'ethereum-mainnet', call(1, 'eth_chainId'), { key: apiKey, headers })).status).toBe(502);
      } finally {
        node.mode = 'ok';
      }
      expect(await usdOf(t, accountId)).toBe(before);
      const retry = await rpc(t, 'ethereum-mainnet', call(1, 'eth_chainId'), { key: apiKey, headers });
      expect(retry.status).toBe(200);
      expect(retry.headers.get('idempotent-replayed')).toBeNull();
    });
  });
}
