import { Elysia } from 'elysia';
import type { AppDeps } from '../deps';
import { formatMicros } from '../billing/money';
import { PaymentForCall } from '../x402/call-payment';
import { discoveryFor } from '../x402/discovery';
import { decodePayment, paymentHeader } from '../x402/payment-payload';
import { x402Of } from '../x402/service';
import { refuseIfAccountBlocked } from './abuse-guard';
import { requestContext } from './request-id';
import type { RequestContext } from '../http/request-context';

/**
 * How a metered route prices the 402 of a caller without credentials: at the call's
 * reservation, known when the meter opens (`reservation`, model routes), or at the minimum
 * payment before the handler runs (`minimum`, routes priced by line items, whose handlers
 * may need the caller before they reserve).
 */
export type PayPerCall = 'reservation' | 'minimum';

/** The OpenAPI `x-payment-info` of a metered operation when payments are configured, as the reference writes it. */
function paymentInfo(deps: AppDeps): Record<string, unknown> {
  const x402 = x402Of(deps);
  if (!x402.options.configured) return {};
  const usd = (micros: number) => formatMicros(micros, 2);
  return {
    'x-payment-info': {
      price: { mode: 'dynamic', currency: 'USD', min: usd(x402.perCall.minMicros), max: usd(x402.perCall.maxMicros) },
      protocols: [{ x402: {} }],
    },
  };
}

/**
 * Verifies an offered payment (its payer becomes the caller), or refuses a call without one
 * that must pay first. A payer whose account the abuse guard blocked is refused here, before
 * the meter settles the payment: the guard's own check ran before the payer was known.
 */
async function takePayment(deps: AppDeps, payment: PaymentForCall, svc: RequestContext, pricing: PayPerCall, path: string): Promise<void> {
  if (payment.offered) {
    const caller = await payment.verify(svc.caller);
    refuseIfAccountBlocked(deps, caller, path);
    svc.caller = caller;
  } else if (pricing === 'minimum' && !svc.caller) throw await payment.required(0);
}

/**
 * x402 pay-per-call on metered routes (the `payPerCall` route option, composed by `meter`
 * before authentication), when payments are configured. A caller without an API key may
 * send a payment (PAYMENT-SIGNATURE, X-PAYMENT, X-402-Payment), alone or with a sign-in:
 * - transform: the header is decoded (400 naming the field) and the request marked payable,
 *   so the auth gate lets a caller without credentials through;
 * - beforeHandle (after body validation, so a bad request costs no facilitator call): the
 *   payment is checked and verified, and its payer becomes the caller (a wallet);
 * - the meter's wallet admission (src/x402/wallet-admission.ts) then settles it once the
 *   call's reservation is known, or answers the 402 for the amount this call needs.
 */
export function x402PaymentGate(deps: AppDeps, listenPort: () => number | undefined) {
  const discovery = discoveryFor(deps, listenPort);
  return new Elysia({ name: 'svc.gate.x402-payment' }).use(requestContext).macro({
    payPerCall: (pricing: PayPerCall) => ({
      // The reference's mark of a route paid per call (a dynamic price), on this deployment's bounds.
      detail: paymentInfo(deps),
      transform: function readPayment({ request, svc, set }) {
        const x402 = x402Of(deps);
        if (!x402.options.configured || request.headers.has('authorization')) return;
        const header = paymentHeader(request);
        const signedIn = request.headers.has('sign-in-with-x') || request.headers.has('x-sign-in-with-x');
        if (header === null && signedIn) return;
        svc.payment = new PaymentForCall(x402, discovery, request, set.headers, header === null ? null : decodePayment(header), signedIn);
      },
      // Not async: a request without a payment (nearly all) takes no async step here.
      beforeHandle: function verifyPayment({ svc, path }) {
        const payment = svc.payment;
        if (!(payment instanceof PaymentForCall)) return;
        return takePayment(deps, payment, svc, pricing, path);
      },
    }),
  });
}
