import { normalizeWalletAddress } from '../auth/wallet-accounts';
import { microsToNumber } from '../billing/money';
import { noteOnError } from '../http/error-notes';
import type { Caller, CallPayment } from '../http/request-context';
import type { Discovery } from './discovery';
import { invalidPayment } from './errors';
import type { DecodedPayment } from './payment-payload';
import type { X402Service } from './service';
import type { VerifiedPayment } from './top-up';

/**
 * An x402 payment offered for one call on a metered route (the reference's `x-payment-info`,
 * a dynamic price): `verify` runs the top-up's checks within the per-call bounds and the
 * facilitator's /verify, and names the payer; the meter's wallet admission then asks
 * `required` for a 402 when the payment does not cover the call's reservation, or `settle`s
 * it, which credits the payer's wallet exactly as a top-up (same row, same replay refusal)
 * before the call is served from that balance. Once credited, the answer carries
 * PAYMENT-RESPONSE, and any error answer of the request says in its body that the credit
 * stays on the wallet and the failed call charged nothing.
 */
export class PaymentForCall implements CallPayment {
  private verified: VerifiedPayment | null = null;
  private receipt: Promise<string> | null = null;

  constructor(
    private readonly x402: X402Service,
    private readonly discovery: Discovery,
    private readonly request: Request,
    /** The response headers: the receipt goes there as soon as the payment is settled, whatever follows. */
    private readonly headers: Record<string, string | number>,
    private readonly payment: DecodedPayment | null,
    readonly signedIn: boolean,
  ) {}

  /** Whether the request carries a payment header. */
  get offered(): boolean {
    return this.payment !== null;
  }

  get amountMicros(): number {
    return this.verified?.checked.amountMicros ?? 0;
  }

  /**
   * Checks the payment (400 naming what is wrong, 502 when the facilitator cannot tell) and
   * returns its payer as a wallet caller. A signed-in caller must pay from its own wallet.
   */
  async verify(signedIn: Caller | null): Promise<Caller> {
    if (!this.payment) throw new Error('x402: verify without a payment');
    const verified = await this.x402.topUp.prepare(this.payment, this.x402.perCall);
    const address = normalizeWalletAddress(verified.payer, verified.checked.chain);
    if (signedIn && signedIn.wallet?.address !== address)
      throw invalidPayment('The payment must come from the signed-in wallet (SIGN-IN-WITH-X), or be sent without a sign-in');
    this.verified = verified;
    if (signedIn) return signedIn;
    const { account } = verified;
    return { accountId: account.id, tier: account.tier, via: 'wallet', apiKey: null, wallet: { address, chain: verified.checked.chain } };
  }

  required(amountMicros: number): Promise<Error> {
    return this.discovery(this.request, Math.max(amountMicros, this.x402.perCall.minMicros));
  }

  settle(): Promise<string> {
    this.receipt ??= this.credit();
    return this.receipt;
  }

  private async credit(): Promise<string> {
    if (!this.verified) throw new Error('x402: settle before verify');
    const { result, header } = await this.x402.topUp.complete(this.verified);
    this.headers['payment-response'] = header;
    this.headers['x-payment-response'] = header;
    noteOnError(this.request, {
      payment: {
        paymentId: result.paymentId,
        walletAddress: result.walletAddress,
        amountCredited: result.amountCredited,
        message:
          `Payment ${result.paymentId} settled and ${microsToNumber(this.verified.checked.amountMicros)} USD was credited to wallet ` +
          `${result.walletAddress}; it stays there (this failed call charged nothing): spend it with SIGN-IN-WITH-X ` +
          `and see GET /x402/balance/${result.walletAddress}`,
      },
    });
    return header;
  }
}
