import { createHash } from 'node:crypto';
import type { RpcNode } from './node';

/** The id of the built-in simulated network. */
export const SIMULATED_NETWORK = 'svc-sim-mainnet';

/** Its chain id: 0x5356 ("SV"), unused by any public chain. */
export const SIMULATED_CHAIN_ID = 0x5356;

/** Its block 0 time and block interval: block numbers follow the clock, the same on every instance. */
const GENESIS_MS = Date.UTC(2026, 0, 1);
const BLOCK_MS = 12_000;

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const HEX_DATA = /^0x(?:[0-9a-fA-F]{2})*$/;

interface Call {
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/** A deterministic balance in wei for `address`: up to about 18.4 ETH, from its hash. */
export function simulatedBalance(address: string): bigint {
  return digest(`balance:${address.toLowerCase()}`).readBigUInt64BE(0);
}

/** A deterministic 32-byte eth_call result for (to, data). */
export function simulatedCallResult(to: string, data: string): string {
  return `0x${digest(`call:${to.toLowerCase()}:${data.toLowerCase()}`).toString('hex')}`;
}

const hex = (n: bigint | number) => `0x${n.toString(16)}`;

/** One call's answer object. */
function answer(call: Call, now: number): Record<string, unknown> {
  const ok = (result: unknown) => ({ jsonrpc: '2.0', id: call.id, result });
  const fail = (code: number, message: string) => ({ jsonrpc: '2.0', id: call.id, error: { code, message } });
  const params = Array.isArray(call.params) ? call.params : [];
  switch (call.method) {
    case 'eth_chainId':
      return ok(hex(SIMULATED_CHAIN_ID));
    case 'net_version':
      return ok(String(SIMULATED_CHAIN_ID));
    case 'eth_blockNumber':
      return ok(hex(Math.max(0, Math.floor((now - GENESIS_MS) / BLOCK_MS))));
    case 'eth_getBalance': {
      const [address] = params;
      if (typeof address !== 'string' || !ADDRESS.test(address)) return fail(-32602, 'invalid params: expected an address');
      return ok(hex(simulatedBalance(address)));
    }
    case 'eth_call': {
      const [tx] = params as [{ to?: unknown; data?: unknown; input?: unknown } | undefined];
      const data = tx?.data ?? tx?.input ?? '0x';
      if (typeof tx?.to !== 'string' || !ADDRESS.test(tx.to) || typeof data !== 'string' || !HEX_DATA.test(data))
        return fail(-32602, 'invalid params: expected {to, data}');
      return ok(simulatedCallResult(tx.to, data));
    }
    default:
      return fail(
        -32601,
        `the simulated network ${SIMULATED_NETWORK} answers eth_chainId, net_version, eth_blockNumber, eth_getBalance and eth_call only`,
      );
  }
}

/**
 * The simulated EVM node of `svc-sim-mainnet`: answers chain id, block number (one block
 * every 12 s since 2026-01-01), balances and eth_call deterministically, in process, so the
 * proxy can be tried on a fresh start with no node. Other methods get JSON-RPC -32601.
 */
export function simulatedNode(now: () => number): RpcNode {
  return {
    label: 'simulator',
    async send(body) {
      const parsed = JSON.parse(body) as Call | Call[];
      const at = now();
      return JSON.stringify(Array.isArray(parsed) ? parsed.map((c) => answer(c, at)) : answer(parsed, at));
    },
  };
}
