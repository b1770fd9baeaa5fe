import { Elysia, t } from 'elysia';
import { eligibilityFromConfig } from '../auth/eligibility';
import { createKeysService } from '../auth/keys-service';
import type { WalletsConfig } from '../auth/wallet-config';
import { createWeb3KeyFlow } from '../auth/web3-keys';
import { createWeb3Tokens, tokenSecret } from '../auth/web3-token';
import type { AppDeps } from '../deps';
import type { AuthGate } from '../gates/auth';
import { badRequest, tooManyRequests } from '../http/errors';
import type { Caller } from '../http/request-context';

const Limit = t.Union([t.Number({ minimum: 0, maximum: 9_999_999_999 }), t.Null()]);
const ConsumptionLimit = t.Object(
  { usd: t.Optional(Limit), diem: t.Optional(Limit), vcu: t.Optional(Limit) },
  { additionalProperties: false, description: 'Limits in whole units, evaluated over limitPeriod; null removes one' },
);
const ApiKeyType = t.Union([t.Literal('INFERENCE'), t.Literal('ADMIN')]);
const LimitPeriod = t.Union([t.Literal('EPOCH'), t.Literal('MONTH'), t.Literal('LIFETIME')]);
const ExpiresAt = t.Union([t.Literal(''), t.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' }), t.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,6})?Z$' })], {
  description: "'' for none, YYYY-MM-DD (midnight UTC) or YYYY-MM-DDTHH:mm:ss(.sss)Z",
});

const CreateBody = t.Object(
  {
    apiKeyType: ApiKeyType,
    description: t.String({ minLength: 1, maxLength: 64 }),
    consumptionLimit: t.Optional(ConsumptionLimit),
    limitPeriod: t.Optional(LimitPeriod),
    expiresAt: t.Optional(ExpiresAt),
  },
  { additionalProperties: false },
);

const UpdateBody = t.Object(
  {
    id: t.String({ format: 'uuid' }),
    description: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
    consumptionLimit: t.Optional(ConsumptionLimit),
    limitPeriod: t.Optional(LimitPeriod),
    expiresAt: t.Optional(t.Union([ExpiresAt, t.Null()])),
  },
  { additionalProperties: false },
);

const Web3Body = t.Object({
  apiKeyType: ApiKeyType,
  address: t.String({ minLength: 1, maxLength: 128 }),
  signature: t.String({ minLength: 1, maxLength: 1024 }),
  token: t.String({ minLength: 1, maxLength: 4096 }),
  description: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
  consumptionLimit: t.Optional(ConsumptionLimit),
  limitPeriod: t.Optional(LimitPeriod),
  expiresAt: t.Optional(ExpiresAt),
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The key id of DELETE: `?id=` or a JSON body `{ id }`; 400 naming `id` when absent or not a UUID. */
function deleteId(query: { id?: string }, body: unknown): string {
  const fromBody = body && typeof body === 'object' && 'id' in body ? (body as { id: unknown }).id : undefined;
  const id = query.id ?? fromBody;
  if (id === undefined || id === null || id === '') throw badRequest('Invalid request parameters: id', [{ path: ['id'], message: 'Required' }]);
  if (typeof id !== 'string' || !UUID.test(id)) throw badRequest('Invalid request parameters: id', [{ path: ['id'], message: 'Invalid uuid' }]);
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
export function keyRoutes(deps: AppDeps, auth: AuthGate, wallets: WalletsConfig) {
  const db = deps.storage.db;
  const service = createKeysService({ db, keys: deps.keys, now: deps.now });
  const web3 = createWeb3KeyFlow({
    db,
    kv: deps.kv,
    now: deps.now,
    keys: service,
    staking: wallets.web3Keys.staking,
    eligibility: eligibilityFromConfig(wallets.web3Keys, deps.fetch),
    tokens: createWeb3Tokens({ secret: () => tokenSecret(deps.config.tokenSecret, deps.kv), ttlSeconds: wallets.web3Keys.tokenTtlSeconds, now: deps.now }),
  });

  async function limitCreations(accountId: string) {
    const minute = Math.floor(deps.now() / 60_000);
    const n = await deps.kv.incrBy(`keys:created:${accountId}:${minute}`, 1, 61_000);
    if (n > CREATIONS_PER_MINUTE) throw tooManyRequests('Rate limit exceeded: at most 20 API keys may be created per minute');
  }

  const tags = ['API Keys'];
  return new Elysia({ name: 'svc.routes.keys' })
    .use(auth)
    .get('/api_keys', async function listApiKeys({ svc }) {
      return { object: 'list' as const, data: await service.list(accountOf(svc.caller)) };
    }, { auth: 'ADMIN', detail: { operationId: 'getApiKeys', summary: 'List API keys', tags } })
    .post('/api_keys', async function createApiKey({ svc, body }) {
      const accountId = accountOf(svc.caller);
      await limitCreations(accountId);
      return { success: true, data: await service.create(accountId, body) };
    }, { auth: 'ADMIN', body: CreateBody, detail: { operationId: 'createApiKey', summary: 'Create an API key (the secret is shown once)', tags } })
    .patch('/api_keys', async function updateApiKey({ svc, body }) {
      const { id, ...changes } = body;
      return { success: true, data: await service.update(accountOf(svc.caller), id, changes) };
    }, { auth: 'ADMIN', body: UpdateBody, detail: { operationId: 'updateApiKey', summary: 'Update an API key', tags } })
    .delete('/api_keys', async function deleteApiKey({ svc, query, body }) {
      await service.remove(accountOf(svc.caller), deleteId(query, body));
      return { success: true };
    }, {
      auth: 'ADMIN',
      query: t.Object({ id: t.Optional(t.String({ description: 'The ID of the API key to delete' })) }),
      detail: { operationId: 'deleteApiKey', summary: 'Delete an API key (id in the query or a JSON body)', tags },
    })
    .get('/api_keys/generate_web3_key', async function getWeb3KeyToken() {
      return { success: true, data: { token: await web3.issueToken() } };
    }, { detail: { operationId: 'getApiKeyGenerateWeb3Key', summary: 'Get a token for a wallet to sign (15 min, single use)', tags, security: [] } })
    .post('/api_keys/generate_web3_key', async function postWeb3Key({ body }) {
      return { success: true, data: await web3.redeem(body) };
    }, { body: Web3Body, detail: { operationId: 'postApiKeyGenerateWeb3Key', summary: 'Create an API key with a wallet signature of the token', tags, security: [] } })
    .get('/api_keys/:id', async function getApiKeyById({ svc, params }) {
      if (!UUID.test(params.id)) throw badRequest('Invalid request parameters: id', [{ path: ['id'], message: 'Invalid uuid' }]);
      return { data: await service.get(accountOf(svc.caller), params.id) };
    }, { auth: 'ADMIN', detail: { operationId: 'getApiKeyById', summary: 'Get an API key', tags } });
}
