import { t } from 'elysia';

// Request and response schemas of the key routes, as the reference OpenAPI declares them.

const Limit = t.Union([t.Number({ minimum: 0, maximum: 9_999_999_999 }), t.Null()]);
const Limits = t.Object({ usd: t.Optional(Limit), diem: t.Optional(Limit), vcu: t.Optional(Limit) }, { additionalProperties: false });
const ShownLimits = t.Object({ usd: t.Nullable(t.Number()), diem: t.Nullable(t.Number()), vcu: t.Nullable(t.Number()) });
const ApiKeyType = t.Union([t.Literal('INFERENCE'), t.Literal('ADMIN')], {
  description: 'ADMIN: full access; INFERENCE: inference endpoints only',
});
const LimitPeriod = t.Union([t.Literal('EPOCH'), t.Literal('MONTH'), t.Literal('LIFETIME')], {
  description: 'EPOCH resets every UTC day, MONTH on the 1st of each UTC month, LIFETIME never',
});
const ExpiresAt = t.Union(
  [
    t.Literal(''),
    t.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'a date YYYY-MM-DD (midnight UTC)' }),
    t.String({
      pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,6})?Z$',
      description: 'a UTC date-time YYYY-MM-DDTHH:mm:ss(.sss)Z',
    }),
  ],
  {
    description: "'' for none, YYYY-MM-DD (midnight UTC) or YYYY-MM-DDTHH:mm:ss(.sss)Z",
  },
);
const Description = t.String({ minLength: 1, maxLength: 64 });

/** Body of POST /api_keys. */
export const CreateKeyBody = t.Object(
  {
    apiKeyType: ApiKeyType,
    description: Description,
    consumptionLimit: t.Optional(Limits),
    limitPeriod: t.Optional(LimitPeriod),
    expiresAt: t.Optional(ExpiresAt),
  },
  { additionalProperties: false },
);

/** Body of PATCH /api_keys. */
export const UpdateKeyBody = t.Object(
  {
    id: t.String({ format: 'uuid' }),
    description: t.Optional(Description),
    consumptionLimit: t.Optional(Limits),
    limitPeriod: t.Optional(LimitPeriod),
    expiresAt: t.Optional(t.Union([ExpiresAt, t.Null()])),
  },
  { additionalProperties: false },
);

/** Body of POST /api_keys/generate_web3_key. */
export const Web3KeyBody = t.Object({
  apiKeyType: ApiKeyType,
  address: t.String({ minLength: 1, maxLength: 128, description: 'EVM wallet address' }),
  signature: t.String({ minLength: 1, maxLength: 1024, description: 'EIP-191 personal_sign of the token' }),
  token: t.String({ minLength: 1, maxLength: 4096, description: 'From GET /api_keys/generate_web3_key' }),
  description: t.Optional(Description),
  consumptionLimit: t.Optional(Limits),
  limitPeriod: t.Optional(LimitPeriod),
  expiresAt: t.Optional(ExpiresAt),
});

/** A key as list, get and update show it. */
const KeyRecord = t.Object({
  id: t.String(),
  apiKeyType: ApiKeyType,
  description: t.String(),
  createdAt: t.Nullable(t.String()),
  expiresAt: t.Nullable(t.String()),
  lastUsedAt: t.Nullable(t.String()),
  last6Chars: t.String(),
  consumptionLimits: ShownLimits,
  limitPeriod: LimitPeriod,
  usage: t.Optional(t.Object({ trailingSevenDays: t.Object({ usd: t.String(), vcu: t.String(), diem: t.String() }) })),
  currentPeriodUsage: t.Optional(t.Object({ usd: t.String(), diem: t.String() })),
});

/** The creation response's `data`: the only place the secret appears. */
const CreatedKey = t.Object({
  apiKey: t.String(),
  apiKeyType: ApiKeyType,
  consumptionLimit: ShownLimits,
  limitPeriod: LimitPeriod,
  description: t.String(),
  expiresAt: t.Nullable(t.String()),
  id: t.String(),
});

/** 200 bodies of the key routes. */
export const KeyResponses = {
  list: t.Object({ object: t.Literal('list'), data: t.Array(KeyRecord) }),
  one: t.Object({ data: KeyRecord }),
  updated: t.Object({ success: t.Boolean(), data: KeyRecord }),
  created: t.Object({ success: t.Boolean(), data: CreatedKey }),
  deleted: t.Object({ success: t.Boolean() }),
  token: t.Object({ success: t.Boolean(), data: t.Object({ token: t.String() }) }),
};
