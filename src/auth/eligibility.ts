import type { WalletsConfig } from './wallet-config';
import { responseJsonUpTo } from '../net/limited-body';

/** Bytes of a JSON-RPC answer read at most: an eth_call result is one 32-byte word. */
const RPC_ANSWER_BYTES = 64 * 1024;

/** Decides whether a wallet may create a web3 key (spec 4.2: it must hold staked tokens). */
export interface EligibilityProvider {
  /** True when `address` (lower-case EVM address) is eligible; throws EligibilityUnavailable when it cannot tell. */
  isEligible(address: string): Promise<boolean>;
}

/** The eligibility source (RPC node) failed or timed out; the client may retry. */
export class EligibilityUnavailable extends Error {
  override name = 'EligibilityUnavailable';
}

/** Wallets listed in config are always eligible. */
export function allowListEligibility(addresses: string[]): EligibilityProvider {
  const allowed = new Set(addresses.map((a) => a.toLowerCase()));
  return { isEligible: async (address) => allowed.has(address.toLowerCase()) };
}

// keccak256("balanceOf(address)")[0..4]
const BALANCE_OF = '0x70a08231';

/**
 * The staked balance of `address` in the token's base units: an `eth_call` of ERC-20
 * `balanceOf(address)` on the staking token through the configured JSON-RPC node. Throws
 * EligibilityUnavailable when the node fails, times out or answers nonsense.
 */
export async function readStakedBalance(
  staking: NonNullable<WalletsConfig['web3Keys']['staking']>,
  fetcher: typeof fetch,
  address: string,
): Promise<bigint> {
  const data = BALANCE_OF + address.toLowerCase().replace(/^0x/, '').padStart(64, '0');
  let reply: { result?: unknown; error?: unknown };
  try {
    const res = await fetcher(staking.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_call', params: [{ to: staking.tokenAddress, data }, 'latest'] }),
      signal: AbortSignal.timeout(staking.timeoutMs),
    });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    reply = await responseJsonUpTo<typeof reply>(res, RPC_ANSWER_BYTES);
  } catch (error) {
    throw new EligibilityUnavailable(`staking RPC failed: ${(error as Error).message}`);
  }
  if (typeof reply.result !== 'string' || !/^0x[0-9a-fA-F]*$/.test(reply.result))
    throw new EligibilityUnavailable('staking RPC returned no result');
  return reply.result === '0x' ? 0n : BigInt(reply.result);
}

/** Staked balance on chain (readStakedBalance); eligible when it reaches `minBalance`. */
export function stakedBalanceEligibility(
  staking: NonNullable<WalletsConfig['web3Keys']['staking']>,
  fetcher: typeof fetch,
): EligibilityProvider {
  const minimum = BigInt(staking.minBalance);
  return {
    async isEligible(address) {
      return (await readStakedBalance(staking, fetcher, address)) >= minimum;
    },
  };
}

/** Eligible when any provider says so; asked in order, so the allow list short-cuts the RPC call. */
export function anyEligibility(providers: EligibilityProvider[]): EligibilityProvider {
  return {
    async isEligible(address) {
      for (const provider of providers) if (await provider.isEligible(address)) return true;
      return false;
    },
  };
}

/** The configured provider: the allow list, then the staking check when configured. */
export function eligibilityFromConfig(web3Keys: WalletsConfig['web3Keys'], fetcher: typeof fetch): EligibilityProvider {
  const providers = [allowListEligibility(web3Keys.allowList)];
  if (web3Keys.staking) providers.push(stakedBalanceEligibility(web3Keys.staking, fetcher));
  return anyEligibility(providers);
}
