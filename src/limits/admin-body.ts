import { Type as T, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { invalidField, invalidFields } from '../http/errors';
import type { AccountLimitsChange } from './account-limits';
import { RateLimitOverridesSchema } from './tables';

/** Body of PUT /admin/accounts/{accountId}/rate_limits (documented in OpenAPI, validated by {@link parseAccountLimitsChange}). */
export const AccountLimitsBody = T.Object(
  {
    tier: T.Optional(T.Union([T.Literal('standard'), T.Literal('partner')], { description: 'The table of spec 8.1 the account uses' })),
    overrides: T.Optional(
      T.Union([RateLimitOverridesSchema, T.Null()], { description: 'Replaces the account overrides; null removes them' }),
    ),
  },
  { additionalProperties: false },
);

type Problem = { path: (string | number)[]; message: string };

function problemsOf(schema: Parameters<typeof Value.Errors>[0], value: unknown, at: string[]): Problem[] {
  const problems: Problem[] = [];
  for (const error of Value.Errors(schema, value)) {
    problems.push({ path: [...at, ...error.path.split('/').filter(Boolean)], message: error.message });
    if (problems.length >= 20) break;
  }
  return problems;
}

/**
 * Validates the body strictly (unknown fields are errors, not silently dropped, which is
 * why the route does not let Elysia normalize it); `isModel` rejects overrides for model
 * ids the catalog does not know. Throws 400 naming each bad field.
 */
export function parseAccountLimitsChange(body: unknown, isModel: (id: string) => boolean): AccountLimitsChange {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw invalidField('body', 'must be a JSON object', 'body');
  const raw = body as Record<string, unknown>;
  const problems: Problem[] = [];
  for (const key of Object.keys(raw))
    if (key !== 'tier' && key !== 'overrides') problems.push({ path: [key], message: 'is not a known field' });
  if (raw.tier !== undefined)
    problems.push(
      ...problemsOf(AccountLimitsBody.properties.tier, raw.tier, ['tier']).map((p) => ({
        ...p,
        message: 'must be one of: standard, partner',
      })),
    );
  if (raw.overrides !== undefined && raw.overrides !== null) {
    problems.push(...problemsOf(RateLimitOverridesSchema, raw.overrides, ['overrides']));
    const models = (raw.overrides as { models?: unknown }).models;
    if (models && typeof models === 'object')
      for (const id of Object.keys(models))
        if (!isModel(id)) problems.push({ path: ['overrides', 'models', id], message: 'is not a model id of the catalog' });
  }
  if (problems.length) throw invalidFields(problems, 'body');
  return raw as Static<typeof AccountLimitsBody>;
}
