import type { Static } from '@sinclair/typebox';
import type { AllowListSchema, CreditTierSchema, RpcFamily } from './config';

/** A method's credit multiplier over its family's base credits: 1, 2 or 4. */
export type CreditTier = Static<typeof CreditTierSchema>;

/** An allow-list: method name to its credit tier. */
export type AllowList = Readonly<Static<typeof AllowListSchema>>;

/** Credits of a 1× call per family (API-NOTES 11: 20 for EVM and Starknet, 30 for zkSync). */
export const BASE_CREDITS: Readonly<Record<RpcFamily, number>> = { evm: 20, starknet: 20, zksync: 30 };

/** Credits billed for a call the node answered with a JSON-RPC error. */
export const ERROR_CREDITS = 5;

const tier = (t: CreditTier, names: string[]): Record<string, CreditTier> => Object.fromEntries(names.map((n) => [n, t]));

/** Standard (1×) methods of every EVM chain: reads, eth_sendRawTransaction, ERC-4337 bundler calls. */
const EVM_STANDARD = [
  'eth_chainId', 'net_version', 'net_listening', 'net_peerCount', 'web3_clientVersion', 'eth_syncing', 'eth_protocolVersion',
  'eth_blockNumber', 'eth_gasPrice', 'eth_maxPriorityFeePerGas', 'eth_blobBaseFee', 'eth_feeHistory',
  'eth_getBalance', 'eth_getTransactionCount', 'eth_getCode', 'eth_getStorageAt', 'eth_call', 'eth_estimateGas',
  'eth_createAccessList', 'eth_getProof', 'eth_getLogs', 'eth_getBlockReceipts',
  'eth_getBlockByNumber', 'eth_getBlockByHash', 'eth_getBlockTransactionCountByNumber', 'eth_getBlockTransactionCountByHash',
  'eth_getTransactionByHash', 'eth_getTransactionByBlockNumberAndIndex', 'eth_getTransactionByBlockHashAndIndex',
  'eth_getTransactionReceipt', 'eth_getUncleCountByBlockNumber', 'eth_getUncleCountByBlockHash',
  'eth_getUncleByBlockNumberAndIndex', 'eth_getUncleByBlockHashAndIndex', 'eth_sendRawTransaction',
  'eth_sendUserOperation', 'eth_estimateUserOperationGas', 'eth_getUserOperationByHash', 'eth_getUserOperationReceipt',
  'eth_supportedEntryPoints',
]; // prettier-ignore

/** Chain extensions served on the EVM networks that have them (Linea, Polygon PoS); elsewhere the node answers -32601. */
const EVM_EXTENSIONS = [
  'linea_estimateGas', 'bor_getAuthor', 'bor_getCurrentProposer', 'bor_getCurrentValidators', 'bor_getRootHash',
  'bor_getSignersAtHash',
]; // prettier-ignore

/** Advanced (2×): traces, debug traces, the transaction pool's summary. */
const EVM_ADVANCED = [
  'trace_block', 'trace_call', 'trace_callMany', 'trace_filter', 'trace_get', 'trace_rawTransaction', 'trace_transaction',
  'debug_traceBlockByHash', 'debug_traceBlockByNumber', 'debug_traceCall', 'debug_traceTransaction',
  'txpool_inspect', 'txpool_status',
]; // prettier-ignore

/** Large (4×): replays and the whole transaction pool. */
const EVM_LARGE = ['trace_replayBlockTransactions', 'trace_replayTransaction', 'txpool_content'];

const EVM: AllowList = { ...tier(1, EVM_STANDARD), ...tier(1, EVM_EXTENSIONS), ...tier(2, EVM_ADVANCED), ...tier(4, EVM_LARGE) };

/**
 * The default allow-lists and tiers (the reference's: standard reads and writes 1×, traces
 * and debug 2×, replays and the whole pool 4×; chain extensions such as `zks_*` and
 * `starknet_*` 1×). Stateful filters (eth_newFilter, ...) are left out: their state lives on
 * one node, and a failover proxy cannot promise the same node twice.
 */
export const DEFAULT_METHODS: Readonly<Record<RpcFamily, AllowList>> = {
  evm: EVM,
  zksync: {
    ...EVM,
    ...tier(1, [
      'zks_L1ChainId', 'zks_L1BatchNumber', 'zks_getMainContract', 'zks_getBridgeContracts', 'zks_getBridgehubContract',
      'zks_getBlockDetails', 'zks_getL1BatchDetails', 'zks_getL1BatchBlockRange', 'zks_getTransactionDetails',
      'zks_getTestnetPaymaster', 'zks_getFeeParams', 'zks_getProtocolVersion', 'zks_getBytecodeByHash',
      'zks_estimateFee', 'zks_estimateGasL1ToL2', 'zks_getAllAccountBalances', 'zks_getProof', 'zks_getL2ToL1LogProof',
      'zks_getL2ToL1MsgProof', 'zks_getRawBlockTransactions', 'zks_sendRawTransactionWithDetailedOutput',
    ]), // prettier-ignore
  },
  starknet: tier(1, [
    'starknet_specVersion', 'starknet_chainId', 'starknet_syncing', 'starknet_blockNumber', 'starknet_blockHashAndNumber',
    'starknet_getBlockWithTxHashes', 'starknet_getBlockWithTxs', 'starknet_getBlockWithReceipts', 'starknet_getStateUpdate',
    'starknet_getStorageAt', 'starknet_getTransactionStatus', 'starknet_getTransactionByHash',
    'starknet_getTransactionByBlockIdAndIndex', 'starknet_getTransactionReceipt', 'starknet_getClass',
    'starknet_getClassHashAt', 'starknet_getClassAt', 'starknet_getBlockTransactionCount', 'starknet_call',
    'starknet_getNonce', 'starknet_estimateFee', 'starknet_estimateMessageFee', 'starknet_getEvents',
    'starknet_getStorageProof', 'starknet_getMessagesStatus', 'starknet_addInvokeTransaction',
    'starknet_addDeclareTransaction', 'starknet_addDeployAccountTransaction',
  ]), // prettier-ignore
};

/** Methods that only make sense over a WebSocket (a subscription needs a connection to push on). */
const WEBSOCKET_ONLY = /^(eth_subscribe|eth_unsubscribe|starknet_subscribe\w*|starknet_unsubscribe)$/;

/** Filter methods whose state lives on the node that created the filter. */
const STATEFUL_FILTERS = /^eth_(newFilter|newBlockFilter|newPendingTransactionFilter|getFilterChanges|getFilterLogs|uninstallFilter)$/;

/** The family whose namespace a method name belongs to, when that names one (zkSync's eth_* count as its own). */
function namespaceFamily(method: string): RpcFamily | null {
  if (method.startsWith('starknet_')) return 'starknet';
  if (method.startsWith('zks_')) return 'zksync';
  if (/^(eth|net|web3|debug|trace|txpool|arbtrace|linea|bor|erigon|parity)_/.test(method)) return 'evm';
  return null;
}

const FAMILY_NAMES: Record<RpcFamily, string> = { evm: 'an EVM', starknet: 'a Starknet', zksync: 'a zkSync' };

/**
 * The credit tier of `method` on a network of `family` with `allowed`, or why it is
 * refused: a WebSocket-only method, a stateful filter, another family's method, or one not
 * allowed on this network.
 */
export function methodTier(method: string, family: RpcFamily, allowed: AllowList, network: string): CreditTier | string {
  const allowedTier = Object.hasOwn(allowed, method) ? allowed[method] : undefined;
  if (allowedTier !== undefined) return allowedTier;
  if (WEBSOCKET_ONLY.test(method)) return `"${method}" needs a WebSocket connection, which this HTTP proxy does not offer; poll instead`;
  if (STATEFUL_FILTERS.test(method))
    return `"${method}" keeps filter state on one node, which a proxy over several nodes cannot promise; use eth_getLogs`;
  const owner = namespaceFamily(method);
  // zkSync speaks Ethereum's JSON-RPC too, so eth_* is not a cross-family call there.
  if (owner && owner !== family && !(family === 'zksync' && owner === 'evm'))
    return `"${method}" is ${FAMILY_NAMES[owner]} method and ${network} is ${FAMILY_NAMES[family]} network`;
  return `"${method}" is not a supported method on ${network}`;
}
