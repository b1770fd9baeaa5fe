import { and, eq, isNull } from 'drizzle-orm';
import { Elysia, t } from 'elysia';
import { GUARDRAIL_NAMES } from '../../plugins/guardrails';
import { accounts, apiKeys } from '../db/schema';
import type { AppDeps } from '../deps';
import type { Stages } from '../gates';
import { ErrorBody } from '../http/error-body';
import { invalidFields, notFound } from '../http/errors';
import { AccountParams, UUID } from './admin-accounts';

const tags = ['Admin'];
const KeyParams = t.Object({ keyId: t.String({ description: 'API key id (UUID)' }) });
const GuardrailsBody = t.Object({
  guardrails: t.Array(t.String({ maxLength: 64 }), {
    maxItems: 32,
    description: `Guardrails always run for it, replacing the list it had (${GUARDRAIL_NAMES.join(', ')}); [] removes them all`,
  }),
});
const KeyGuardrails = t.Object({ data: t.Object({ keyId: t.String(), guardrails: t.Array(t.String()) }) });
const AccountGuardrails = t.Object({ data: t.Object({ accountId: t.String(), guardrails: t.Array(t.String()) }) });
const routeResponses = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };

/** The names in `list`, each once in first-given order; a 400 naming every entry that is not a built-in guardrail. */
function guardrailNames(list: string[]): string[] {
  const known: readonly string[] = GUARDRAIL_NAMES;
  const problems = list.flatMap((name, i) =>
    known.includes(name) ? [] : [{ path: ['guardrails', i], message: `unknown guardrail "${name}" (known: ${known.join(', ')})` }],
  );
  if (problems.length) throw invalidFields(problems);
  return [...new Set(list)];
}

/**
 * The operator's guardrail assignment (ADMIN keys of the operator's account): the guardrails
 * every request of a key, or of every key of an account, runs. Stored on the key and account
 * rows; the key cache carries them to the `guardrails` plugin, so a change invalidates the
 * cached keys it affects on every instance.
 */
export function adminGuardrailRoutes(deps: AppDeps, stages: Stages) {
  const db = deps.storage.db;

  async function liveKey(keyId: string) {
    if (!UUID.test(keyId)) throw invalidFields([{ path: ['keyId'], message: 'must be a UUID' }]);
    const [row] = await db
      .select({ id: apiKeys.id, guardrails: apiKeys.guardrails })
      .from(apiKeys)
      .where(and(eq(apiKeys.id, keyId), isNull(apiKeys.deletedAt)))
      .limit(1);
    if (!row) throw notFound('API key not found');
    return row;
  }
  async function account(accountId: string) {
    if (!UUID.test(accountId)) throw invalidFields([{ path: ['accountId'], message: 'must be a UUID' }]);
    const [row] = await db
      .select({ id: accounts.id, guardrails: accounts.guardrails })
      .from(accounts)
      .where(eq(accounts.id, accountId))
      .limit(1);
    if (!row) throw notFound('Account not found');
    return row;
  }

  return new Elysia({ name: 'svc.routes.admin-guardrails' })
    .use(stages)
    .get(
      '/admin/keys/:keyId/guardrails',
      async function getKeyGuardrails({ params }) {
        const row = await liveKey(params.keyId);
        return { data: { keyId: row.id, guardrails: row.guardrails } };
      },
      {
        auth: 'OPERATOR',
        params: KeyParams,
        response: { 200: KeyGuardrails, ...routeResponses },
        detail: { operationId: 'getKeyGuardrails', summary: 'The guardrails attached to an API key (operator)', tags },
      },
    )
    .put(
      '/admin/keys/:keyId/guardrails',
      async function putKeyGuardrails({ params, body }) {
        const guardrails = guardrailNames(body.guardrails);
        await liveKey(params.keyId);
        const [row] = await db
          .update(apiKeys)
          .set({ guardrails })
          .where(and(eq(apiKeys.id, params.keyId), isNull(apiKeys.deletedAt)))
          .returning({ id: apiKeys.id, secretHash: apiKeys.secretHash, guardrails: apiKeys.guardrails });
        if (!row) throw notFound('API key not found');
        await deps.keys.invalidate(row.secretHash);
        return { data: { keyId: row.id, guardrails: row.guardrails } };
      },
      {
        auth: 'OPERATOR',
        params: KeyParams,
        parse: 'json',
        body: GuardrailsBody,
        response: { 200: KeyGuardrails, ...routeResponses },
        detail: { operationId: 'putKeyGuardrails', summary: 'Set the guardrails every request with an API key runs (operator)', tags },
      },
    )
    .get(
      '/admin/accounts/:accountId/guardrails',
      async function getAccountGuardrails({ params }) {
        const row = await account(params.accountId);
        return { data: { accountId: row.id, guardrails: row.guardrails } };
      },
      {
        auth: 'OPERATOR',
        params: AccountParams,
        response: { 200: AccountGuardrails, ...routeResponses },
        detail: { operationId: 'getAccountGuardrails', summary: 'The guardrails attached to an account (operator)', tags },
      },
    )
    .put(
      '/admin/accounts/:accountId/guardrails',
      async function putAccountGuardrails({ params, body }) {
        const guardrails = guardrailNames(body.guardrails);
        await account(params.accountId);
        const [row] = await db
          .update(accounts)
          .set({ guardrails })
          .where(eq(accounts.id, params.accountId))
          .returning({ id: accounts.id, guardrails: accounts.guardrails });
        if (!row) throw notFound('Account not found');
        // Each cached key carries its account's list: drop every key of the account (deleted ones are not cached).
        const keys = await db
          .select({ secretHash: apiKeys.secretHash })
          .from(apiKeys)
          .where(and(eq(apiKeys.accountId, row.id), isNull(apiKeys.deletedAt)));
        await Promise.all(keys.map((k) => deps.keys.invalidate(k.secretHash)));
        return { data: { accountId: row.id, guardrails: row.guardrails } };
      },
      {
        auth: 'OPERATOR',
        params: AccountParams,
        parse: 'json',
        body: GuardrailsBody,
        response: { 200: AccountGuardrails, ...routeResponses },
        detail: {
          operationId: 'putAccountGuardrails',
          summary: "Set the guardrails every request of an account's keys runs (operator)",
          tags,
        },
      },
    );
}
