// JSON-RPC calls and node answers the crypto RPC benches send and answer
// (bench/rpc.ts in process, bench/servers/upstream-families.ts for `npm run bench`).

const address = (i: number) => `0x${i.toString(16).padStart(40, '0')}`;

/** Call i: eth_getBalance when even, an ERC-20 balanceOf eth_call when odd (both in the evm allow-list). */
export const callOf = (i: number) =>
  i % 2 === 0
    ? { jsonrpc: '2.0', id: i, method: 'eth_getBalance', params: [address(i), 'latest'] }
    : {
        jsonrpc: '2.0',
        id: i,
        method: 'eth_call',
        params: [{ to: address(i), data: `0x70a08231${'0'.repeat(24)}${address(i).slice(2)}` }, 'latest'],
      };

/** The node's answer to call i: a 32-byte quantity. */
export const answerOf = (i: number) => ({
  jsonrpc: '2.0',
  id: i,
  result: `0x${(BigInt(i) * 1_000_000_007n).toString(16).padStart(64, '0')}`,
});
