import { desc, lt } from 'drizzle-orm';
import { ErrorBody } from '../http/error-body';
import { Elysia, t } from 'elysia';
import { accounts } from '../db/schema';
import type { AppDeps } from '../deps';
import type { Stages } from '../gates';
import { badRequest } from '../http/errors';

/** An account as the operator's routes list it. */
export const AccountSummary = t.Object({
  id: t.String(),
  kind: t.String(),
  tier: t.String(),
  operator: t.Boolean(),
  scratch: t.Boolean(),
  displayName: t.Union([t.String(), t.Null()]),
  walletAddress: t.Union([t.String(), t.Null()]),
  createdAt: t.String({ format: 'date-time' }),
});
const ListResult = t.Object({
  object: t.Literal('list'),
  data: t.Array(AccountSummary),
  nextBefore: t.Union([t.String({ format: 'date-time' }), t.Null()], {
    description: 'Pass as `before` for the next page; null on the last',
  }),
});

/** An account row as an AccountSummary. */
export const accountSummary = (r: typeof accounts.$inferSelect) => ({
  id: r.id,
  kind: r.kind,
  tier: r.tier,
  operator: r.operator,
  scratch: r.scratch,
  displayName: r.displayName,
  walletAddress: r.walletAddress,
  createdAt: r.createdAt.toISOString(),
});

/**
 * GET /admin/accounts: the accounts, newest first, in pages (operator only; the operator
 * CLI's `accounts list`). Balances are per account at GET /admin/accounts/{accountId}.
 */
export function adminAccountListRoutes(deps: AppDeps, stages: Stages) {
  const db = deps.storage.db;
  return new Elysia({ name: 'svc.routes.admin-account-list' }).use(stages).get(
    '/admin/accounts',
    async function listAccountsByOperator({ query }) {
      const limit = query.limit ?? 100;
      const before = query.before ? new Date(query.before) : null;
      if (before && Number.isNaN(before.getTime()))
        throw badRequest('Invalid query parameters: before', [{ path: ['before'], message: 'Expected an ISO 8601 date-time' }]);
      const rows = await db
        .select()
        .from(accounts)
        .where(before ? lt(accounts.createdAt, before) : undefined)
        .orderBy(desc(accounts.createdAt))
        .limit(limit + 1);
      const page = rows.slice(0, limit);
      return {
        object: 'list' as const,
        data: page.map(accountSummary),
        nextBefore: rows.length > limit ? (page.at(-1)?.createdAt.toISOString() ?? null) : null,
      };
    },
    {
      auth: 'OPERATOR',
      query: t.Object({
        limit: t.Optional(t.Integer({ minimum: 1, maximum: 500, description: 'Page size (default 100)' })),
        before: t.Optional(t.String({ description: "Only accounts created before this time (the previous page's nextBefore)" })),
      }),
      response: { 200: ListResult, 400: ErrorBody, 401: ErrorBody },
      detail: {
        operationId: 'listAccounts',
        summary: "List accounts, newest first (ADMIN key of the operator's account)",
        tags: ['Admin'],
      },
    },
  );
}
