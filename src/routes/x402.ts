import { Elysia, t } from 'elysia';
import type { PaymentRequired } from '@x402/core/types';
import { normalizeWalletAddress } from '../auth/wallet-accounts';
import { publicOrigin } from '../auth/wallet-config';
import { microsToNumber, toMicros } from '../billing/money';
import type { AppDeps } from '../deps';
import type { Stages } from '../gates';
import { ErrorBody } from '../http/error-body';
import { badRequest, unauthorized } from '../http/errors';
import type { Caller } from '../http/request-context';
import { paymentRequiredHeader } from '../x402/challenges';
import { paymentError } from '../x402/errors';
import { clientIp, ipRateLimit, type RequestIpSource } from '../x402/ip-limit';
import { decodePayment, paymentHeader } from '../x402/payment-payload';
import { x402Of } from '../x402/service';
import { walletTransactions } from '../x402/transactions';
import { walletReadChallenge } from '../x402/discovery';

const WalletAddress = t.String({ pattern: '^(0x[a-fA-F0-9]{40}|[1-9A-HJ-NP-Za-km-z]{32,44})$', description: 'EVM or Solana address' });
const TopUpBody = t.Optional(
  t.Object(
    { amountUsd: t.Optional(t.Number({ minimum: 0, description: 'Amount to offer in the 402, USD; the minimum top-up when omitted' })) },
    { additionalProperties: false },
  ),
);
const TopUpResponse = t.Object({
  success: t.Boolean(),
  data: t.Object({ walletAddress: t.String(), amountCredited: t.Number(), newBalance: t.Number(), paymentId: t.String() }),
});
const TopUpRequired = t.Object({
  x402Version: t.Number(),
  error: t.Optional(t.String()),
  resource: t.Optional(t.Object({ url: t.String(), description: t.Optional(t.String()), mimeType: t.Optional(t.String()) })),
  accepts: t.Array(t.Record(t.String(), t.Unknown())),
});
const BalanceResponse = t.Object({
  success: t.Boolean(),
  data: t.Object({
    walletAddress: t.String(),
    balanceUsd: t.Number(),
    canConsume: t.Boolean(),
    minimumTopUpUsd: t.Number(),
    suggestedTopUpUsd: t.Number(),
  }),
});
// Bounds are checked by hand: a bounded t.Integer (a string-coercing Transform) reports its
// errors without the field's path.
const TransactionsQuery = t.Object({
  limit: t.Optional(t.Integer({ description: 'Entries per page, 1..100; default 50' })),
  offset: t.Optional(t.Integer({ description: 'Entries to skip, >= 0; default 0' })),
});

/** A query integer within bounds, else a 400 naming it. */
function bounded(name: string, value: number | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (value < min || value > max)
    throw badRequest(`Invalid query parameters: ${name}`, [{ path: [name], message: `Expected an integer from ${min} to ${max}` }]);
  return value;
}
const tags = ['x402'];

/**
 * The wallet reads' refusals: without a credential, 402 with the sign-in challenge (what
 * `wrapFetchWithSIWx` answers; 401 when sign-in is off), 403 for another wallet or a key.
 */
const WALLET_READ_ERRORS = { 400: ErrorBody, 401: ErrorBody, 402: ErrorBody, 403: ErrorBody, 429: ErrorBody };

/**
 * The signed-in wallet, which must be the one in the path: 403 X402_WALLET_MISMATCH for
 * another wallet or an API key. The routes are OPTIONAL to the auth gate (INFERENCE routes
 * are the metered ones), so this is where a credential is required; without one, the caller
 * answers the sign-in challenge (`walletReadChallenge`).
 */
function ownWallet(caller: Caller, walletAddress: string): Caller {
  const wallet = caller.wallet;
  const chain = walletAddress.startsWith('0x') ? 'evm' : 'solana';
  if (!wallet || wallet.address !== normalizeWalletAddress(walletAddress, chain))
    throw paymentError(403, 'X402_WALLET_MISMATCH', 'Sign in (SIGN-IN-WITH-X) with the wallet whose balance you ask for');
  return caller;
}

/**
 * x402 wallet endpoints (spec 4.7, API-NOTES 10): the top-up (402 with x402 payment
 * requirements, or a signed payment settled through the facilitator and credited once), and
 * the signed-in wallet's balance and transactions.
 */
export function x402Routes(deps: AppDeps, stages: Stages) {
  const x402 = x402Of(deps);
  /** The caller of a wallet read: 402 with the sign-in challenge without one (401 when sign-in is off). */
  async function walletReader(caller: Caller | null, request: Request, server: unknown, walletAddress: string): Promise<Caller> {
    if (caller) return ownWallet(caller, walletAddress);
    if (!x402.wallets.siwx.enabled)
      throw unauthorized('Authentication failed: wallet sign-in (SIGN-IN-WITH-X) is not enabled on this server');
    throw await walletReadChallenge(deps, request, walletAddress, (server as { port?: number } | null)?.port);
  }
  const limitIp = ipRateLimit(deps.kv, { name: 'x402-top-up', perMinute: x402.payments.topUpsPerMinutePerIp, now: deps.now });

  function offeredMicros(amountUsd: number | undefined): number {
    if (amountUsd === undefined) return x402.minMicros;
    const micros = toMicros(amountUsd);
    if (micros < x402.minMicros) throw paymentError(400, 'AMOUNT_TOO_LOW', `The minimum top-up is ${microsToNumber(x402.minMicros)} USD`);
    if (micros > x402.maxMicros) throw paymentError(400, 'AMOUNT_TOO_HIGH', `The maximum top-up is ${microsToNumber(x402.maxMicros)} USD`);
    return micros;
  }

  return new Elysia({ name: 'svc.routes.x402' })
    .use(stages)
    .post(
      '/x402/top-up',
      async function topUpX402Balance({ request, body, server, set }) {
        await limitIp(clientIp(request, server as RequestIpSource | null, x402.payments.trustForwardedFor));
        if (!x402.options.configured)
          throw paymentError(503, 'X402_NOT_CONFIGURED', 'Wallet top-ups are not configured on this server (wallets.payments)');
        const header = paymentHeader(request);
        if (header === null) {
          const origin = publicOrigin(deps.config, (server as { port?: number } | null)?.port);
          const required: PaymentRequired = {
            x402Version: 2,
            error: 'Payment required: sign one of the offered USDC payments and send it in PAYMENT-SIGNATURE',
            resource: {
              url: `${origin}${new URL(request.url).pathname}`,
              description: 'Top up the wallet balance',
              mimeType: 'application/json',
            },
            accepts: await x402.topUp.offer(offeredMicros(body?.amountUsd)),
          };
          set.status = 402;
          Object.assign(set.headers, paymentRequiredHeader(required));
          return required;
        }
        const { result, header: receipt } = await x402.topUp.pay(decodePayment(header));
        set.headers['payment-response'] = receipt;
        set.headers['x-payment-response'] = receipt;
        return { success: true, data: result };
      },
      {
        body: TopUpBody,
        response: { 200: TopUpResponse, 402: TopUpRequired, 503: ErrorBody },
        detail: { tags, operationId: 'topUpX402Balance', summary: 'Top up a wallet balance with an x402 USDC payment' },
      },
    )
    .get(
      '/x402/balance/:walletAddress',
      async function getX402Balance({ params, svc, request, server }) {
        const caller = await walletReader(svc.caller, request, server, params.walletAddress);
        const balances = await deps.meter.balances(caller.accountId);
        const usdc = balances.USDC ?? 0;
        return {
          success: true,
          data: {
            walletAddress: params.walletAddress,
            balanceUsd: microsToNumber(usdc),
            canConsume: usdc >= toMicros(x402.payments.minimumBalanceUsd),
            minimumTopUpUsd: microsToNumber(x402.minMicros),
            suggestedTopUpUsd: Math.max(x402.payments.suggestedTopUpUsd, microsToNumber(x402.minMicros)),
          },
        };
      },
      {
        auth: 'OPTIONAL',
        params: t.Object({ walletAddress: WalletAddress }),
        response: { 200: BalanceResponse, ...WALLET_READ_ERRORS },
        detail: { tags, operationId: 'getX402Balance', summary: 'x402 credit balance of a wallet' },
      },
    )
    .get(
      '/x402/transactions/:walletAddress',
      async function getX402Transactions({ params, query, svc, request, server }) {
        const caller = await walletReader(svc.caller, request, server, params.walletAddress);
        const limit = bounded('limit', query.limit, 50, 1, 100);
        const offset = bounded('offset', query.offset, 0, 0, Number.MAX_SAFE_INTEGER);
        // Charges reach the ledger in batches: write the pending ones so the list is current.
        await deps.meter.flush();
        const [page, balances] = await Promise.all([
          walletTransactions(deps.storage.db, caller.accountId, { limit, offset }),
          deps.meter.balances(caller.accountId),
        ]);
        return {
          success: true,
          data: {
            walletAddress: params.walletAddress,
            currentBalance: microsToNumber(balances.USDC ?? 0),
            transactions: page.transactions,
            pagination: { limit, offset, hasMore: offset + page.transactions.length < page.total },
          },
        };
      },
      {
        auth: 'OPTIONAL',
        params: t.Object({ walletAddress: WalletAddress }),
        query: TransactionsQuery,
        response: { 200: t.Object({}, { additionalProperties: true }), ...WALLET_READ_ERRORS },
        detail: { tags, operationId: 'getX402Transactions', summary: 'x402 transaction history of a wallet' },
      },
    );
}
