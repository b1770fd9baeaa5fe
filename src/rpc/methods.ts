import { badRequest, type ServiceError } from '../http/errors';
import type { RpcFamily } from './config';

/** A method's credit multiplier over its family's base credits. */
export type CreditTier = 1 | 2 | 4;

/** An allow-list: method name to its credit tier. */
export type AllowList = Readonly<Record<string, CreditTier>>;

/** Credits of a 1× call per family (API-NOTES 11: 20 for EVM and Starknet, 30 for zkSync). */
export const BASE_CREDITS: Readonly<Record<RpcFamily, number>> = { evm: 20, starknet: 20, zksync: 30 };

/** Credits billed for a call the node answered with a JSON-RPC error. */
export const ERROR_CREDITS = 5;

const tier = (t: CreditTier, names: string[]): Record<string, CreditTier> => Object.fromEntries(names.map((n) => [n, t]));

/** Reads shared by EVM chains and zkSync Era (its JSON-RPC is Ethereum's plus `zks_*`). */
const EVM_READS = [
  'eth_chainId', 'net_version', 'net_listening', 'web3_clientVersion', 'eth_syncing', 'eth_protocolVersion',
  'eth_blockNumber', 'eth_gasPrice', 'eth_maxPriorityFeePerGas', 'eth_blobBaseFee', 'eth_feeHistory',
  'eth_getBalance', 'eth_getTransactionCount', 'eth_getCode', 'eth_getStorageAt', 'eth_call', 'eth_estimateGas',
  'eth_getBlockByNumber', 'eth_getBlockByHash', 'eth_getBlockTransactionCountByNumber', 'eth_getBlockTransactionCountByHash',
  'eth_getTransactionByHash', 'eth_getTransactionByBlockNumberAndIndex', 'eth_getTransactionByBlockHashAndIndex',
  'eth_getTransactionReceipt', 'eth_getUncleCountByBlockNumber', 'eth_getUncleCountByBlockHash',
]; // prettier-ignore

/** Heavier EVM reads: logs, whole-block receipts, proofs, access lists. */
const EVM_HEAVY = ['eth_getLogs', 'eth_getBlockReceipts', 'eth_getProof', 'eth_createAccessList'];

/** The default allow-lists: reads at 1×, heavy reads at 2×, writes (a transaction sent) at 4×. */
export const DEFAULT_METHODS: Readonly<Record<RpcFamily, AllowList>> = {
  evm: { ...tier(1, EVM_READS), ...tier(2, EVM_HEAVY), ...tier(4, ['eth_sendRawTransaction']) },
  zksync: {
    ...tier(1, EVM_READS),
    ...tier(2, EVM_HEAVY),
    ...tier(4, ['eth_sendRawTransaction']),
    ...tier(1, [
      'zks_L1ChainId', 'zks_L1BatchNumber', 'zks_getMainContract', 'zks_getBridgeContracts', 'zks_getBridgehubContract',
      'zks_getBlockDetails', 'zks_getL1BatchDetails', 'zks_getL1BatchBlockRange', 'zks_getTransactionDetails',
      'zks_getTestnetPaymaster', 'zks_getFeeParams', 'zks_getProtocolVersion', 'zks_getBytecodeByHash',
      'zks_estimateFee', 'zks_estimateGasL1ToL2', 'zks_getAllAccountBalances',
    ]), // prettier-ignore
    ...tier(2, ['zks_getProof', 'zks_getL2ToL1LogProof', 'zks_getL2ToL1MsgProof', 'zks_getRawBlockTransactions']),
  },
  starknet: {
    ...tier(1, [
      'starknet_specVersion', 'starknet_chainId', 'starknet_syncing', 'starknet_blockNumber', 'starknet_blockHashAndNumber',
      'starknet_getBlockWithTxHashes', 'starknet_getBlockWithTxs', 'starknet_getBlockWithReceipts', 'starknet_getStateUpdate',
      'starknet_getStorageAt', 'starknet_getTransactionStatus', 'starknet_getTransactionByHash',
      'starknet_getTransactionByBlockIdAndIndex', 'starknet_getTransactionReceipt', 'starknet_getClass',
      'starknet_getClassHashAt', 'starknet_getClassAt', 'starknet_getBlockTransactionCount', 'starknet_call',
      'starknet_getNonce', 'starknet_estimateFee', 'starknet_estimateMessageFee',
    ]), // prettier-ignore
    ...tier(2, ['starknet_getEvents', 'starknet_getStorageProof']),
    ...tier(4, ['starknet_addInvokeTransaction', 'starknet_addDeclareTransaction', 'starknet_addDeployAccountTransaction']),
  },
};

/** Methods that only make sense over a WebSocket (a subscription needs a connection to push on). */
const WEBSOCKET_ONLY = /^(eth_subscribe|eth_unsubscribe|starknet_subscribe\w*|starknet_unsubscribe)$/;

/** The family whose namespace a method name belongs to, when that names one. */
function namespaceFamily(method: string): RpcFamily | null {
  if (method.startsWith('starknet_')) return 'starknet';
  if (method.startsWith('zks_')) return 'zksync';
  if (/^(eth|net|web3|debug|trace|txpool|erigon|parity)_/.test(method)) return 'evm';
  return null;
}

const FAMILY_NAMES: Record<RpcFamily, string> = { evm: 'an EVM', starknet: 'a Starknet', zksync: 'a zkSync' };

/**
 * The credit tier of `method` on a network of `family` with `allowed`, or the 400 that says
 * why it is refused: a WebSocket-only method, another family's method, or one not allowed.
 * `path` is the field's place in the body (`['method']`, `[3, 'method']`).
 */
export function methodTier(
  method: string,
  family: RpcFamily,
  allowed: AllowList,
  network: string,
  path: (string | number)[],
): CreditTier | ServiceError {
  const allowedTier = Object.hasOwn(allowed, method) ? allowed[method] : undefined;
  if (allowedTier !== undefined) return allowedTier;
  const field = path.join('.');
  const refuse = (reason: string) => badRequest(`${field}: ${reason}`, [{ path, message: reason }]);
  if (WEBSOCKET_ONLY.test(method))
    return refuse(`"${method}" needs a WebSocket connection, which this HTTP proxy does not offer; poll instead`);
  const owner = namespaceFamily(method);
  // zkSync speaks Ethereum's JSON-RPC too, so eth_* is not a cross-family call there.
  if (owner && owner !== family && !(family === 'zksync' && owner === 'evm'))
    return refuse(`"${method}" is ${FAMILY_NAMES[owner]} method and ${network} is ${FAMILY_NAMES[family]} network`);
  return refuse(`"${method}" is not a supported method on ${network}`);
}
