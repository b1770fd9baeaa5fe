import { parseWalletsConfig } from '../auth/wallet-config';
import { parseBillingConfig } from '../billing/config';
import type { MeterOpenInput, MeterTicket, UsageMeter } from '../billing/meter';
import { toMicros } from '../billing/money';
import { openedReservationMicros } from '../billing/pricing';
import { walletPaymentRequired, type WalletChallengeConfig } from '../billing/payment-required';
import type { Config } from '../config';
import type { KeyValueStore } from '../kv/store';
import type { Logger } from '../log';
import { paymentError } from './errors';
import { stakingCredit } from './staking-credit';

/** How long an in-flight count outlives a process that died holding it. */
const SLOT_TTL_MS = 15 * 60_000;

/**
 * The reference's two admission rules for wallet callers (API-NOTES 10), around the meter so
 * they bind every metered call: a USDC balance below `minimumBalanceUsd` ($0.10) is refused
 * with 402 variant 3 before anything is reserved, and at most `concurrencyPerWallet` (5) calls
 * of one wallet run at once (429 X402_CONCURRENCY_LIMIT). A slot is taken when the call opens
 * and given back when its ticket settles or releases, so a stream holds it to its end. The
 * count lives in the shared KV, so the limit holds across instances. The day's staking credit
 * (src/x402/staking-credit.ts) is granted first, so it counts toward the minimum.
 *
 * An x402 payment for the call (`ctx.payment`, src/gates/x402-payment.ts) is settled here,
 * where the reservation is known: it must cover the reservation (and `minimumPaymentUsd`),
 * else the 402 asks for that amount and nothing is settled; a signed-in wallet whose balance
 * covers the call spends the balance instead. It is settled after the slot is taken, and
 * credited to the wallet before the reservation, so the call is served from that balance.
 */
export function walletAdmission<M extends UsageMeter>(
  meter: M,
  deps: {
    kv: KeyValueStore;
    config: Pick<Config, 'billing' | 'basePath'> & WalletChallengeConfig;
    now: () => number;
    fetch: typeof fetch;
    log: Logger;
  },
): M {
  const { kv, config, now } = deps;
  const wallets = parseWalletsConfig(config);
  const payments = wallets.payments;
  const grantStakingCredit = stakingCredit({ wallets, meter, kv, fetch: deps.fetch, now, log: deps.log });
  const minimumMicros = toMicros(payments.minimumBalanceUsd);
  const minimumPaymentMicros = toMicros(payments.minimumPaymentUsd);
  const limit = payments.concurrencyPerWallet;
  const minimumTopUpUsd = parseBillingConfig(config).minimumTopUpUsd;

  async function giveBack(key: string): Promise<void> {
    // Below zero means the key expired while calls held slots (its TTL runs from creation):
    // drop it rather than let the count drift. At zero it stays, so a call admitted meanwhile is not lost.
    if ((await kv.incrBy(key, -1)) < 0) await kv.del(key);
  }

  /** A wallet's call, or a payment without credentials. */
  async function openPaid(input: MeterOpenInput): Promise<MeterTicket> {
    const caller = input.ctx.caller;
    const payment = input.ctx.payment;
    // No credentials and no payment: the 402 asks for a payment that covers this call.
    if (!caller && payment) throw await payment.required(openedReservationMicros(input));
    if (caller?.via !== 'wallet') return meter.open(input);
    await grantStakingCredit?.(caller);
    const balance = (await meter.balances(caller.accountId)).USDC ?? 0;
    const reserved = openedReservationMicros(input);
    // A signed-in wallet whose balance covers the call spends it; the payment is not settled.
    const pays = payment !== undefined && payment.amountMicros > 0 && !(payment.signedIn && balance >= Math.max(reserved, minimumMicros));
    if (pays && payment.amountMicros < Math.max(reserved, minimumPaymentMicros)) throw await payment.required(reserved);
    if (!pays && balance < minimumMicros)
      throw walletPaymentRequired({
        balanceMicros: balance,
        neededMicros: minimumMicros,
        minimumTopUpUsd,
        basePath: config.basePath,
        config,
        nowMs: now(),
      });
    const key = `x402:inflight:${caller.accountId}`;
    if ((await kv.incrBy(key, 1, SLOT_TTL_MS)) > limit) {
      await giveBack(key);
      throw paymentError(429, 'X402_CONCURRENCY_LIMIT', `At most ${limit} requests of one wallet may run at once`, {
        'retry-after': '1',
      });
    }
    let ticket: MeterTicket;
    try {
      // Settled and credited once the call is admitted, then served from that balance.
      if (pays) await payment.settle();
      ticket = await meter.open(input);
    } catch (error) {
      await giveBack(key);
      throw error;
    }
    let slot: Promise<void> | null = null;
    const done = () => (slot ??= giveBack(key));
    return {
      balances: ticket.balances,
      headers: ticket.headers,
      async settle(usage) {
        try {
          return await ticket.settle(usage);
        } finally {
          await done();
        }
      },
      async release() {
        try {
          await ticket.release();
        } finally {
          await done();
        }
      },
    };
  }

  return {
    ...meter,
    // Not async: a key's call (most) is the meter's own answer, with no async step over it.
    open(input) {
      const caller = input.ctx.caller;
      if (caller ? caller.via !== 'wallet' : !input.ctx.payment) return meter.open(input);
      return openPaid(input);
    },
  };
}
