import { eq } from 'drizzle-orm';
import { ErrorBody } from '../http/error-body';
import { Elysia, t } from 'elysia';
import { randomUUID } from 'node:crypto';
import type { Currency } from '../billing/credit';
import { MICROS, microsToNumber, toMicros } from '../billing/money';
import { accounts } from '../db/schema';
import type { AppDeps } from '../deps';
import type { Stages } from '../gates';
import { invalidField, notFound } from '../http/errors';

const tags = ['Admin'];
/** An account id as routes accept it. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const AMOUNT = /^\d+(\.\d{1,6})?$/;
// Well below 2^53 micro-units, so a balance plus a credit stays an exact integer.
const MAX_CREDIT_MICROS = 1_000_000_000 * MICROS;

/** The `{accountId}` path parameter of the operator's account routes. */
export const AccountParams = t.Object({ accountId: t.String({ description: 'Account id (UUID)' }) });
const CreditBody = t.Object({
  currency: t.Union([t.Literal('USD'), t.Literal('DIEM'), t.Literal('VCU'), t.Literal('BUNDLED_CREDITS'), t.Literal('USDC')]),
  amount: t.Union([t.String({ maxLength: 32 }), t.Number()], {
    description: 'Whole units, > 0, at most 6 decimals: "12.50" (exact) or 12.5',
  }),
  notes: t.Optional(t.String({ maxLength: 500 })),
  idempotencyKey: t.Optional(t.String({ minLength: 1, maxLength: 200, description: 'A retried credit with the same key is applied once' })),
});
const CreditResult = t.Object({
  success: t.Literal(true),
  data: t.Object({
    accountId: t.String(),
    currency: t.String(),
    amount: t.Number(),
    applied: t.Boolean({ description: 'False when the idempotency key was already used' }),
    balance: t.Number({ description: 'Balance in this currency after the credit' }),
  }),
});
const AccountResult = t.Object({
  data: t.Object({
    id: t.String(),
    kind: t.String(),
    tier: t.String(),
    operator: t.Boolean(),
    scratch: t.Boolean({ description: 'A scratch account (POST /admin/accounts), which DELETE /admin/accounts/{accountId} removes' }),
    createdAt: t.String({ format: 'date-time' }),
    balances: t.Record(t.String(), t.Number()),
  }),
});

/** The credit amount in micro-units; 400 naming `amount` unless it is an exact positive decimal. */
function creditMicros(amount: string | number): number {
  const text = typeof amount === 'number' ? (Number.isFinite(amount) ? String(amount) : '') : amount.trim();
  if (!AMOUNT.test(text)) throw invalidField('amount', 'must be a positive decimal with at most 6 decimals');
  const micros = toMicros(text);
  if (micros <= 0 || micros > MAX_CREDIT_MICROS) throw invalidField('amount', 'must be above 0 and at most 1000000000');
  return micros;
}

/**
 * Operator endpoints (ADMIN keys of the operator's account): credit an account, read an
 * account with its live balances. Credits go through the meter, which owns live balances.
 */
export function adminAccountRoutes(deps: AppDeps, stages: Stages) {
  const db = deps.storage.db;

  async function accountRow(accountId: string) {
    if (!UUID.test(accountId)) throw invalidField('accountId', 'must be a UUID');
    const [row] = await db.select().from(accounts).where(eq(accounts.id, accountId)).limit(1);
    if (!row) throw notFound('Account not found');
    return row;
  }
  const numbers = (held: Partial<Record<Currency, number>>) =>
    Object.fromEntries(Object.entries(held).map(([c, m]) => [c, microsToNumber(m ?? 0)]));

  return new Elysia({ name: 'svc.routes.admin-accounts' })
    .use(stages)
    .post(
      '/admin/accounts/:accountId/credits',
      async function creditAccountByOperator({ params, body }) {
        const micros = creditMicros(body.amount);
        const account = await accountRow(params.accountId);
        // Namespaced by account, so one key reused for two accounts credits both.
        const requestId = `operator-credit:${account.id}:${body.idempotencyKey ?? randomUUID()}`;
        const applied = await deps.meter.credit({
          accountId: account.id,
          currency: body.currency,
          amountMicros: micros,
          requestId,
          sku: 'operator-credit',
          notes: body.notes,
          kind: 'CREDIT',
        });
        const balance = (await deps.meter.balances(account.id))[body.currency] ?? 0;
        return {
          success: true as const,
          data: {
            accountId: account.id,
            currency: body.currency,
            amount: microsToNumber(micros),
            applied,
            balance: microsToNumber(balance),
          },
        };
      },
      {
        auth: 'OPERATOR',
        params: AccountParams,
        parse: 'json',
        body: CreditBody,
        response: { 200: CreditResult, 400: ErrorBody, 401: ErrorBody, 404: ErrorBody },
        detail: { operationId: 'creditAccount', summary: "Credit an account (ADMIN key of the operator's account)", tags },
      },
    )
    .get(
      '/admin/accounts/:accountId',
      async function getAccountByOperator({ params }) {
        const row = await accountRow(params.accountId);
        const balances = numbers(await deps.meter.balances(row.id));
        return {
          data: {
            id: row.id,
            kind: row.kind,
            tier: row.tier,
            operator: row.operator,
            scratch: row.scratch,
            createdAt: row.createdAt.toISOString(),
            balances,
          },
        };
      },
      {
        auth: 'OPERATOR',
        params: AccountParams,
        response: { 200: AccountResult, 400: ErrorBody, 401: ErrorBody, 404: ErrorBody },
        detail: { operationId: 'getAccount', summary: "An account and its live balances (ADMIN key of the operator's account)", tags },
      },
    );
}
