import { Elysia, t } from 'elysia';
import { createScratchAccount, deleteScratchAccount } from '../auth/scratch-accounts';
import type { AppDeps } from '../deps';
import type { Stages } from '../gates';
import { invalidField } from '../http/errors';
import { AccountSummary, accountSummary } from './admin-account-list';
import { AccountParams, UUID } from './admin-accounts';
import { ErrorBody } from '../http/error-body';

const tags = ['Admin'];
const CreateBody = t.Object({
  scratch: t.Boolean({
    description:
      'true: a scratch account, which DELETE /admin/accounts/{accountId} removes with everything it holds; ' +
      'false: a lasting account (never deleted, its ledger append-only). Required, so a caller says which',
  }),
  displayName: t.Optional(t.String({ minLength: 1, maxLength: 100 })),
});
const Created = t.Object({
  success: t.Literal(true),
  data: t.Composite([
    AccountSummary,
    t.Object({
      apiKey: t.Object({
        id: t.String(),
        apiKey: t.String({ description: 'The secret of the ADMIN key, shown once' }),
        apiKeyType: t.Literal('ADMIN'),
      }),
    }),
  ]),
});
const Deleted = t.Object({
  success: t.Literal(true),
  data: t.Object({
    id: t.String(),
    deleted: t.Object({ apiKeys: t.Integer(), ledgerEntries: t.Integer(), balances: t.Integer() }),
  }),
});

/**
 * Accounts the operator makes (ADMIN keys of the operator's account): create an account,
 * scratch or lasting, with one ADMIN key and no credit (credit it with POST
 * /admin/accounts/{accountId}/credits), and delete a scratch one with everything it holds.
 * Only scratch accounts can be deleted.
 */
export function adminScratchAccountRoutes(deps: AppDeps, stages: Stages) {
  return new Elysia({ name: 'svc.routes.admin-scratch-accounts' })
    .use(stages)
    .post(
      '/admin/accounts',
      async function createScratchAccountByOperator({ body }) {
        const { account, key } = await createScratchAccount(deps.storage.db, { displayName: body.displayName, scratch: body.scratch });
        return {
          success: true as const,
          data: { ...accountSummary(account), apiKey: { id: key.row.id, apiKey: key.secret, apiKeyType: 'ADMIN' as const } },
        };
      },
      {
        auth: 'OPERATOR',
        parse: 'json',
        body: CreateBody,
        response: { 200: Created },
        detail: {
          operationId: 'createScratchAccount',
          summary: "Create an account, scratch or lasting, with one ADMIN key (ADMIN key of the operator's account)",
          description:
            'The account starts with no credit and one ADMIN key, whose secret is shown once. A scratch account is for trying ' +
            'a deployment out (the contract suite with --write): DELETE /admin/accounts/{accountId} removes it with its keys, ' +
            'ledger and balances. A lasting account (scratch: false) is never deleted.',
          tags,
        },
      },
    )
    .delete(
      '/admin/accounts/:accountId',
      async function deleteScratchAccountByOperator({ params }) {
        if (!UUID.test(params.accountId)) throw invalidField('accountId', 'must be a UUID');
        const deleted = await deleteScratchAccount({ ...deps, db: deps.storage.db }, params.accountId);
        return { success: true as const, data: { id: params.accountId, deleted } };
      },
      {
        auth: 'OPERATOR',
        params: AccountParams,
        response: { 200: Deleted, 404: ErrorBody, 409: ErrorBody },
        detail: {
          operationId: 'deleteScratchAccount',
          summary: "Delete a scratch account and everything it holds (ADMIN key of the operator's account)",
          description:
            'Revokes its keys (401 at once on every instance), then removes its keys, ledger rows, balances, reservations and ' +
            'live balance state. 409 for an account that is not a scratch account (other ledgers are append-only), and while ' +
            'requests of the account still hold balance or any instance still holds charges of it not yet written to the ledger ' +
            '(after waiting up to 2 s for them; Retry-After).',
          tags,
        },
      },
    );
}
