import { readStakedBalance } from '../auth/eligibility';
import type { WalletsConfig } from '../auth/wallet-config';
import type { UsageMeter } from '../billing/meter';
import { toMicros } from '../billing/money';
import type { Caller } from '../http/request-context';
import type { KeyValueStore } from '../kv/store';
import type { Logger } from '../log';

/** Grants the day's staking credit to a wallet caller (a no-op when already granted or turned off). */
export type StakingCredit = (caller: Caller) => Promise<void>;

const DAY_MS = 86_400_000;
/** After a failed RPC read, the same wallet is not asked again for this long. */
const RETRY_AFTER_MS = 60_000;

/**
 * Spec 5.2: staking the service token yields a daily USDC credit, `stakingCreditUsdPerToken`
 * per whole token staked (1 USD by default when turned on). The staked balance is read with
 * the same on-chain reader as web3-key eligibility. The credit is a ledger CREDIT with the
 * request id `staking:<account>:<UTC day>`, whose uniqueness makes it once per UTC day across
 * instances; a KV marker and a local map spare the RPC read on later requests of the day.
 * Returns null when staking credit is off (no rate, or no staking RPC configured).
 */
export function stakingCredit(deps: {
  wallets: WalletsConfig;
  meter: UsageMeter;
  kv: KeyValueStore;
  fetch: typeof fetch;
  now: () => number;
  log: Logger;
}): StakingCredit | null {
  const staking = deps.wallets.web3Keys.staking;
  const rateMicros = BigInt(toMicros(deps.wallets.payments.stakingCreditUsdPerToken));
  if (!staking || rateMicros === 0n) return null;
  const unit = 10n ** BigInt(deps.wallets.payments.stakingTokenDecimals);
  const done = new Map<string, number>();

  return async function grantStakingCredit(caller) {
    if (caller.wallet?.chain !== 'evm') return;
    const now = deps.now();
    const day = Math.floor(now / DAY_MS);
    const until = done.get(caller.accountId);
    if (until !== undefined && until > now) return;
    const marker = `staking:granted:${caller.accountId}:${day}`;
    const endOfDay = (day + 1) * DAY_MS;
    if ((await deps.kv.get(marker)) !== null) {
      done.set(caller.accountId, endOfDay);
      return;
    }
    let staked: bigint;
    try {
      staked = await readStakedBalance(staking, deps.fetch, caller.wallet.address);
    } catch (error) {
      deps.log.warn('x402: staking balance unavailable', { error: String((error as Error).message) });
      done.set(caller.accountId, now + RETRY_AFTER_MS);
      return;
    }
    const micros = (staked * rateMicros) / unit;
    if (micros > 0n) {
      const date = new Date(day * DAY_MS).toISOString().slice(0, 10);
      await deps.meter.credit({
        accountId: caller.accountId,
        currency: 'USDC',
        amountMicros: Number(micros),
        requestId: `staking:${caller.accountId}:${date}`,
        kind: 'CREDIT',
        sku: 'staking_daily_credit',
        notes: `${staked} base units staked`,
      });
    }
    await deps.kv.set(marker, '1', endOfDay - now);
    if (done.size > 100_000) done.clear();
    done.set(caller.accountId, endOfDay);
  };
}
