import { FacilitatorTimeoutError, SettleError, VerifyError } from '@x402/core/types';
import type { PaymentRequirements, SettleResponse } from '@x402/core/types';
import { createHash } from 'node:crypto';
import { ensureWalletAccount, normalizeWalletAddress, type WalletAccount } from '../auth/wallet-accounts';
import type { UsageMeter } from '../billing/meter';
import { microsToNumber } from '../billing/money';
import type { Database } from '../db/database';
import type { Logger } from '../log';
import { BASE_MAINNET } from './config';
import { invalidPayment, paymentError } from './errors';
import { loadEvmPayments, loadHttpHeaders } from './libraries';
import { checkAccepted, checkEvmAuthorization, checkMatchesOffer, checkSolanaTransaction, type CheckedPayment } from './payment-checks';
import type { DecodedPayment } from './payment-payload';
import type { Facilitator, PaymentOptions } from './payment-options';
import { claimPayment, markCredited, markFailed, markSettled, type PaymentRow } from './payments-store';

/** The 200 body of a top-up (API-NOTES 10). */
export interface TopUpResult {
  walletAddress: string;
  amountCredited: number;
  newBalance: number;
  paymentId: string;
}

/** A payment that passed the local checks and the facilitator's /verify, with its payer's wallet account: ready to claim and settle. */
export interface VerifiedPayment {
  payment: DecodedPayment;
  checked: CheckedPayment;
  offered: PaymentRequirements;
  payer: string;
  account: WalletAccount;
}

/** The amounts a payment may have, micro-USD: a top-up's, or a pay-per-call's. */
export interface AmountBounds {
  minMicros: number;
  maxMicros: number;
  /** What the refusals call it ("The minimum top-up is 5 USD"); `top-up` when absent. */
  name?: string;
}

/** What the top-up flow needs. */
export interface TopUpDeps {
  db: Database;
  meter: UsageMeter;
  options: PaymentOptions;
  log: Logger;
  now: () => number;
  minMicros: number;
  maxMicros: number;
  settleTimeoutMs: number;
}

/** The payment id: derived from the network and the nonce, so the same authorization always maps to one row. */
export function paymentIdOf(network: string, nonce: string): string {
  return `pay_${createHash('sha256').update(`${network}\0${nonce}`).digest('hex').slice(0, 32)}`;
}

/** Why a facilitator call failed, without echoing anything from the payment. */
function facilitatorReason(error: unknown): string {
  if (error instanceof VerifyError) return error.invalidReason ?? 'invalid';
  if (error instanceof SettleError) return error.errorReason ?? 'settle_failed';
  if (!(error instanceof Error)) return 'unknown';
  // The resource server wraps a failed /supported ("Failed to initialize: ..."): its cause says why.
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`.slice(0, 300);
}

/**
 * An x402 payment credited to the payer's wallet (a top-up, or a pay-per-call on a metered
 * route): local checks, the facilitator's /verify, a claim of the payment row (its unique id
 * refuses a replay, also between instances), /settle, then the USDC credit and the row's
 * `credited` state in one transaction.
 */
export function createTopUp(deps: TopUpDeps) {
  async function check(payment: DecodedPayment, bounds: AmountBounds): Promise<{ checked: CheckedPayment; offered: PaymentRequirements }> {
    const { options } = deps;
    const amountMicros = checkAccepted(payment, { networks: options.networks, payTo: options.payTo, ...bounds });
    const network = payment.accepted.network;
    const offered = (await offer(amountMicros)).find((r) => r.network === network);
    if (!offered) throw paymentError(400, 'UNSUPPORTED_NETWORK', `The facilitator does not settle ${network} now`);
    checkMatchesOffer(payment.accepted, offered);
    if (network === BASE_MAINNET) {
      const { nonce, payer } = await checkEvmAuthorization(payment, deps.now());
      return { checked: { network, chain: 'evm', amountMicros, nonce, payer }, offered };
    }
    const { nonce } = checkSolanaTransaction(payment);
    return { checked: { network, chain: 'solana', amountMicros, nonce, payer: null }, offered };
  }

  async function offer(amountMicros: number): Promise<PaymentRequirements[]> {
    try {
      return await deps.options.accepts(amountMicros);
    } catch (error) {
      deps.log.warn('x402: facilitator /supported failed', { error: facilitatorReason(error) });
      throw paymentError(502, 'FACILITATOR_UNAVAILABLE', 'The payment facilitator is not reachable; try again shortly');
    }
  }

  async function verify(payment: DecodedPayment, requirements: PaymentRequirements): Promise<string | undefined> {
    try {
      const { verifier } = (await deps.options.facilitator()) as Facilitator;
      const result = await verifier.verify(payment, requirements);
      if (!result.isValid) throw new VerifyError(400, result);
      return result.payer;
    } catch (error) {
      if (error instanceof VerifyError) throw invalidPayment(`The facilitator refused the payment: ${error.invalidReason ?? 'invalid'}`);
      deps.log.warn('x402: facilitator /verify failed', { error: facilitatorReason(error) });
      throw paymentError(502, 'FACILITATOR_UNAVAILABLE', 'The payment facilitator could not verify the payment; nothing was charged');
    }
  }

  /** Settles a claimed row and credits it; shared by the request path and recovery. */
  async function settleAndCredit(row: PaymentRow): Promise<{ result: TopUpResult; settlement: SettleResponse }> {
    const payload = row.payload as DecodedPayment;
    const requirements = row.requirements as PaymentRequirements;
    let settlement: SettleResponse;
    try {
      const { settler } = (await deps.options.facilitator()) as Facilitator;
      settlement = await settler.settle(payload, requirements);
      if (!settlement.success) throw new SettleError(400, settlement);
    } catch (error) {
      if (error instanceof SettleError) {
        await markFailed(deps.db, row.paymentId, error.errorReason ?? 'settle_failed');
        throw paymentError(402, 'SETTLEMENT_FAILED', `Settlement failed: ${error.errorReason ?? 'unknown reason'}; nothing was credited`);
      }
      // Timed out or broken: the facilitator may still settle it, so the row stays pending for recovery.
      deps.log.warn('x402: settlement outcome unknown', { paymentId: row.paymentId, error: facilitatorReason(error) });
      if (error instanceof FacilitatorTimeoutError)
        throw paymentError(
          504,
          'SETTLEMENT_TIMEOUT',
          `Settlement did not complete in time; payment ${row.paymentId} will be credited once it settles`,
        );
      throw paymentError(
        502,
        'FACILITATOR_UNAVAILABLE',
        `The facilitator did not confirm payment ${row.paymentId}; nothing was credited yet: send the same payment again later to resume`,
      );
    }
    await markSettled(deps.db, row.paymentId, settlement.transaction);
    const result = await credit(row);
    return { result, settlement };
  }

  /** Credits a settled row: ledger TOP_UP, USDC balance and the row's state in one transaction. */
  async function credit(row: PaymentRow): Promise<TopUpResult> {
    const applied = await deps.meter.credit({
      accountId: row.accountId,
      currency: 'USDC',
      amountMicros: row.amountMicros,
      requestId: `x402:${row.paymentId}`,
      kind: 'TOP_UP',
      sku: 'x402_top_up',
      notes: `${row.network} ${row.transaction ?? ''}`.trim(),
      alsoInTransaction: (tx) => markCredited(tx, row.paymentId),
    });
    // Credited before (a crash after the commit): only the row's state was behind.
    if (!applied) await markCredited(deps.db, row.paymentId);
    const balances = await deps.meter.balances(row.accountId);
    const { getAddress } = await loadEvmPayments();
    return {
      // Stored lower-case for EVM; shown in the checksummed form wallets display.
      walletAddress: row.payer && row.network === BASE_MAINNET ? getAddress(row.payer) : (row.payer ?? ''),
      amountCredited: microsToNumber(row.amountMicros),
      newBalance: microsToNumber(balances.USDC ?? 0),
      paymentId: row.paymentId,
    };
  }

  /**
   * The checks before any money moves: what was accepted against what is offered (within
   * `bounds`), the authorization offline, the facilitator's /verify, and the payer's account.
   */
  async function prepare(payment: DecodedPayment, bounds: AmountBounds = deps): Promise<VerifiedPayment> {
    const { checked, offered } = await check(payment, bounds);
    const verifiedPayer = await verify(payment, offered);
    const payer = checked.payer ?? verifiedPayer;
    if (!payer) throw invalidPayment('The facilitator did not name the payer of this payment');
    if (checked.payer && verifiedPayer && verifiedPayer.toLowerCase() !== checked.payer.toLowerCase())
      throw invalidPayment('The facilitator names another payer than the authorization');
    const account = await ensureWalletAccount(deps.db, payer, checked.chain);
    return { payment, checked, offered, payer, account };
  }

  /**
   * Claims the payment row (its id, from the nonce, refuses a replay, also between instances),
   * settles it and credits the payer's wallet. Returns the body and the PAYMENT-RESPONSE value.
   */
  async function complete(verified: VerifiedPayment): Promise<{ result: TopUpResult; header: string }> {
    const { checked, payer } = verified;
    const paymentId = paymentIdOf(checked.network, checked.nonce);
    const claim = await claimPayment(
      deps.db,
      {
        paymentId,
        accountId: verified.account.id,
        network: checked.network,
        amountMicros: checked.amountMicros,
        nonce: checked.nonce,
        payer: normalizeWalletAddress(payer, checked.chain),
        payload: verified.payment,
        requirements: verified.offered,
      },
      deps.settleTimeoutMs + 5_000,
    );
    if (!claim.claimed) {
      const row = claim.row;
      if (row.status === 'credited' || row.status === 'settled')
        throw paymentError(409, 'X402_PAYMENT_REPLAYED', `This payment was already used (payment ${row.paymentId})`);
      throw paymentError(409, 'PAYMENT_IN_PROGRESS', `Payment ${row.paymentId} is being settled; check the balance before retrying`);
    }
    const { result, settlement } = await settleAndCredit(claim.row);
    const { encodePaymentResponseHeader } = await loadHttpHeaders();
    const header = encodePaymentResponseHeader({
      success: true,
      network: settlement.network,
      payer: settlement.payer ?? payer,
      transaction: settlement.transaction,
    });
    return { result, header };
  }

  /** POST /x402/top-up with a payment: `prepare` within the top-up bounds, then `complete`. */
  async function pay(payment: DecodedPayment): Promise<{ result: TopUpResult; header: string }> {
    return complete(await prepare(payment));
  }

  return { pay, prepare, complete, settleAndCredit, credit, offer };
}

/** The top-up flow's functions. */
export type TopUp = ReturnType<typeof createTopUp>;
