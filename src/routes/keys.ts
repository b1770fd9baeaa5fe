import { Elysia, t } from 'elysia';
import { CreateKeyBody, KeyResponses, UpdateKeyBody, Web3KeyBody } from '../auth/key-schemas';
import { eligibilityFromConfig } from '../auth/eligibility';
import { createKeysService } from '../auth/keys-service';
import type { WalletsConfig } from '../auth/wallet-config';
import { createWeb3KeyFlow } from '../auth/web3-keys';
import { createWeb3Tokens, tokenSecret } from '../auth/web3-token';
import type { AppDeps } from '../deps';
import type { Stages } from '../gates';
import { invalidField, tooManyRequests } from '../http/errors';
import { refuseMisTypedFields } from '../http/mis-typed-fields';
import type { Caller } from '../http/request-context';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The key id of DELETE: `?id=` or a JSON body `{ id }`; 400 naming `id` when absent or not a UUID. */
function deleteId(query: { id?: string }, body: unknown): string {
  const fromBody = body && typeof body === 'object' && 'id' in body ? (body as { id: unknown }).id : undefined;
  const id = query.id ?? fromBody;
  if (id === undefined || id === null || id === '') throw invalidField('id', 'is required (in the query or a JSON body)');
  if (typeof id !== 'string' || !UUID.test(id)) throw invalidField('id', 'must be a UUID');
  return id;
}

/** The caller an ADMIN route ran with (the auth gate guarantees one). */
const accountOf = (caller: Caller | null) => (caller as Caller).accountId;

const CREATIONS_PER_MINUTE = 20;

/**
 * API key management (ADMIN keys only): GET/POST/PATCH/DELETE /api_keys, GET /api_keys/{id};
 * and the unauthenticated web3 key flow, GET/POST /api_keys/generate_web3_key. Static
 * segments beat `:id` in Elysia's router, so /api_keys/rate_limits etc. are not swallowed.
 */
export function keyRoutes(deps: AppDeps, stages: Stages, wallets: WalletsConfig) {
  const db = deps.storage.db;
  const service = createKeysService({ db, keys: deps.keys, now: deps.now });
  const web3 = createWeb3KeyFlow({
    db,
    kv: deps.kv,
    now: deps.now,
    keys: service,
    web3Keys: wallets.web3Keys,
    eligibility: eligibilityFromConfig(wallets.web3Keys, deps.fetch),
    tokens: createWeb3Tokens({
      secret: () => tokenSecret(deps.config.tokenSecret, deps.kv),
      ttlSeconds: wallets.web3Keys.tokenTtlSeconds,
      now: deps.now,
    }),
  });

  async function limitCreations(accountId: string) {
    const minute = Math.floor(deps.now() / 60_000);
    const n = await deps.kv.incrBy(`keys:created:${accountId}:${minute}`, 1, 61_000);
    if (n > CREATIONS_PER_MINUTE)
      throw tooManyRequests('Rate limit exceeded: at most 20 API keys may be created per minute', {}, (minute + 1) * 60_000 - deps.now());
  }

  const tags = ['API Keys'];
  return new Elysia({ name: 'svc.routes.keys' })
    .use(stages)
    .get(
      '/api_keys',
      async function listApiKeys({ svc }) {
        // Usage comes from the ledger, which charges reach in batches: write pending ones first.
        await deps.meter.flush();
        return { object: 'list' as const, data: await service.list(accountOf(svc.caller)) };
      },
      { auth: 'ADMIN', response: { 200: KeyResponses.list }, detail: { operationId: 'getApiKeys', summary: 'List API keys', tags } },
    )
    .post(
      '/api_keys',
      async function createApiKey({ svc, body }) {
        const accountId = accountOf(svc.caller);
        await limitCreations(accountId);
        return { success: true, data: await service.create(accountId, body) };
      },
      {
        auth: 'ADMIN',
        transform: refuseMisTypedFields(CreateKeyBody),
        parse: 'json',
        body: CreateKeyBody,
        response: { 200: KeyResponses.created },
        detail: { operationId: 'createApiKey', summary: 'Create an API key (the secret is shown once)', tags },
      },
    )
    .patch(
      '/api_keys',
      async function updateApiKey({ svc, body }) {
        const { id, ...changes } = body;
        return { success: true, data: await service.update(accountOf(svc.caller), id, changes) };
      },
      {
        auth: 'ADMIN',
        transform: refuseMisTypedFields(UpdateKeyBody),
        parse: 'json',
        body: UpdateKeyBody,
        response: { 200: KeyResponses.updated },
        detail: { operationId: 'updateApiKey', summary: 'Update an API key', tags },
      },
    )
    .delete(
      '/api_keys',
      async function deleteApiKey({ svc, query, body }) {
        await service.remove(accountOf(svc.caller), deleteId(query, body));
        return { success: true };
      },
      {
        auth: 'ADMIN',
        response: { 200: KeyResponses.deleted },
        query: t.Object({ id: t.Optional(t.String({ description: 'The ID of the API key to delete' })) }),
        detail: { operationId: 'deleteApiKey', summary: 'Delete an API key (id in the query or a JSON body)', tags },
      },
    )
    .get(
      '/api_keys/generate_web3_key',
      async function getWeb3KeyToken() {
        return { success: true, data: { token: await web3.issueToken() } };
      },
      {
        response: { 200: KeyResponses.token },
        detail: {
          operationId: 'getApiKeyGenerateWeb3Key',
          summary: 'Get a token for a wallet to sign (15 min, single use)',
          tags,
          security: [],
        },
      },
    )
    .post(
      '/api_keys/generate_web3_key',
      async function postWeb3Key({ body }) {
        return { success: true, data: await web3.redeem(body) };
      },
      {
        // Unauthenticated, so not an `auth` route; its description is stored like theirs.
        refuseNul: true,
        body: Web3KeyBody,
        response: { 200: KeyResponses.created },
        detail: {
          operationId: 'postApiKeyGenerateWeb3Key',
          summary: 'Create an API key with a wallet signature of the token',
          tags,
          security: [],
        },
      },
    )
    .get(
      '/api_keys/:id',
      async function getApiKeyById({ svc, params }) {
        if (!UUID.test(params.id)) throw invalidField('id', 'must be a UUID', 'path');
        await deps.meter.flush();
        return { data: await service.get(accountOf(svc.caller), params.id) };
      },
      { auth: 'ADMIN', response: { 200: KeyResponses.one }, detail: { operationId: 'getApiKeyById', summary: 'Get an API key', tags } },
    );
}
