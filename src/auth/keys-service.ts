import { and, count, desc, eq, isNull } from 'drizzle-orm';
import { formatMicros, microsToNumber, toMicros } from '../billing/money';
import type { Database } from '../db/database';
import { apiKeys } from '../db/schema';
import { badRequest, invalidField } from '../http/errors';

/** The reference's answer to an unknown or foreign key id: 400 DetailedError naming `id`. */
const keyNotFound = () =>
  badRequest('API key could not be found', [{ path: ['id'], message: 'No live API key of this account has this id' }]);
import { createApiKey, type ApiKeyType, type LimitPeriod } from './api-keys';
import type { KeyCache } from './key-cache';
import { NO_USAGE, usageByKey, type KeyUsage } from './key-usage';

type KeyRow = typeof apiKeys.$inferSelect;

/** Limits as clients send them: whole-unit numbers, null to remove. */
export interface LimitsInput {
  usd?: number | null;
  diem?: number | null;
  vcu?: number | null;
}

/** Most live keys one account may hold (the reference's cap). */
export const MAX_ACTIVE_KEYS = 500;

const microsOrNull = (v: number | null | undefined) => (v === null || v === undefined ? null : toMicros(v));
const numberOrNull = (v: number | null) => (v === null ? null : microsToNumber(v));
const iso = (d: Date | null) => (d ? d.toISOString() : null);

/**
 * Parses `expiresAt` as the reference accepts it: `''` (or null) for none, `YYYY-MM-DD`
 * (midnight UTC of that day) or a full UTC timestamp. A past date is refused.
 */
export function parseExpiry(value: string | null | undefined, nowMs: number): Date | null {
  if (value === undefined || value === null || value === '') return null;
  const date = new Date(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00.000Z` : value);
  if (Number.isNaN(date.getTime())) throw invalidField('expiresAt', 'must be a valid calendar date');
  if (date.getTime() <= nowMs) throw invalidField('expiresAt', 'must be in the future');
  return date;
}

/** Limits in micro-units from the request shape; absent members stay absent (undefined). */
function limitsToMicros(input: LimitsInput) {
  return {
    usd: input.usd === undefined ? undefined : microsOrNull(input.usd),
    diem: input.diem === undefined ? undefined : microsOrNull(input.diem),
    vcu: input.vcu === undefined ? undefined : microsOrNull(input.vcu),
  };
}

/** The key as the list, get and update responses show it (never the secret). */
export function presentKey(row: KeyRow, usage?: { usage: KeyUsage }) {
  const limits = { usd: numberOrNull(row.limitUsdMicros), diem: numberOrNull(row.limitDiemMicros), vcu: numberOrNull(row.limitVcuMicros) };
  const base = {
    id: row.id,
    apiKeyType: row.type,
    description: row.description,
    createdAt: iso(row.createdAt),
    expiresAt: iso(row.expiresAt),
    lastUsedAt: iso(row.lastUsedAt),
    last6Chars: row.last6,
    consumptionLimits: limits,
    limitPeriod: row.limitPeriod,
  };
  if (!usage) return base;
  const u = usage.usage;
  const week = u.trailingSevenDays;
  const period = u.since[row.limitPeriod];
  const hasLimits = limits.usd !== null || limits.diem !== null || limits.vcu !== null;
  return {
    ...base,
    usage: { trailingSevenDays: { usd: formatMicros(week.usd, 4), vcu: formatMicros(week.vcu, 4), diem: formatMicros(week.diem, 4) } },
    ...(hasLimits ? { currentPeriodUsage: { usd: formatMicros(period.usd, 4), diem: formatMicros(period.diem, 4) } } : {}),
  };
}

/** What POST /api_keys and the web3 flow need to create a key. */
export interface CreateKeyInput {
  apiKeyType: ApiKeyType;
  description: string;
  consumptionLimit?: LimitsInput;
  limitPeriod?: LimitPeriod;
  expiresAt?: string | null;
}

/** Key management for one account: list, get, create, update, delete. */
export function createKeysService(deps: { db: Database; keys: KeyCache; now: () => number }) {
  const { db } = deps;

  async function ownKey(accountId: string, id: string): Promise<KeyRow> {
    const [row] = await db
      .select()
      .from(apiKeys)
      .where(and(eq(apiKeys.id, id), eq(apiKeys.accountId, accountId), isNull(apiKeys.deletedAt)))
      .limit(1);
    if (!row) throw keyNotFound();
    return row;
  }

  return {
    /** Live keys of the account, newest first, with usage. */
    async list(accountId: string) {
      const rows = await db
        .select()
        .from(apiKeys)
        .where(and(eq(apiKeys.accountId, accountId), isNull(apiKeys.deletedAt)))
        .orderBy(desc(apiKeys.createdAt));
      const usage = await usageByKey(
        db,
        accountId,
        rows.map((r) => r.id),
        deps.now(),
      );
      return rows.map((row) => presentKey(row, { usage: usage.get(row.id) ?? NO_USAGE }));
    },

    /** One live key of the account; 400 when it belongs to someone else or is gone. */
    async get(accountId: string, id: string) {
      const row = await ownKey(accountId, id);
      const usage = await usageByKey(db, accountId, [row.id], deps.now());
      return presentKey(row, { usage: usage.get(row.id) ?? NO_USAGE });
    },

    /** Creates a key; the response is the only place its secret ever appears. */
    async create(accountId: string, input: CreateKeyInput) {
      const expiresAt = parseExpiry(input.expiresAt, deps.now());
      const [active] = await db
        .select({ n: count() })
        .from(apiKeys)
        .where(and(eq(apiKeys.accountId, accountId), isNull(apiKeys.deletedAt)));
      if ((active?.n ?? 0) >= MAX_ACTIVE_KEYS)
        throw badRequest(`An account may hold at most ${MAX_ACTIVE_KEYS} active API keys`, [
          { path: ['apiKeyType'], message: 'Too many active API keys' },
        ]);
      const limits = limitsToMicros(input.consumptionLimit ?? {});
      const { secret, row } = await createApiKey(db, {
        accountId,
        type: input.apiKeyType,
        description: input.description,
        limitPeriod: input.limitPeriod ?? 'EPOCH',
        limits,
        expiresAt,
      });
      return {
        apiKey: secret,
        apiKeyType: row.type,
        consumptionLimit: {
          usd: numberOrNull(row.limitUsdMicros),
          diem: numberOrNull(row.limitDiemMicros),
          vcu: numberOrNull(row.limitVcuMicros),
        },
        limitPeriod: row.limitPeriod,
        description: row.description,
        expiresAt: iso(row.expiresAt),
        id: row.id,
      };
    },

    /** Updates description, limits, period or expiry (`''`/null removes it); every instance drops its cached copy. */
    async update(
      accountId: string,
      id: string,
      input: { description?: string; consumptionLimit?: LimitsInput; limitPeriod?: LimitPeriod; expiresAt?: string | null },
    ) {
      const current = await ownKey(accountId, id);
      const limits = limitsToMicros(input.consumptionLimit ?? {});
      const changes: Partial<typeof apiKeys.$inferInsert> = {};
      if (input.description !== undefined) changes.description = input.description;
      if (input.limitPeriod !== undefined) changes.limitPeriod = input.limitPeriod;
      if (input.expiresAt !== undefined) changes.expiresAt = parseExpiry(input.expiresAt, deps.now());
      if (limits.usd !== undefined) changes.limitUsdMicros = limits.usd;
      if (limits.diem !== undefined) changes.limitDiemMicros = limits.diem;
      if (limits.vcu !== undefined) changes.limitVcuMicros = limits.vcu;
      if (Object.keys(changes).length === 0) return presentKey(current);
      const [row] = await db
        .update(apiKeys)
        .set(changes)
        .where(and(eq(apiKeys.id, id), eq(apiKeys.accountId, accountId), isNull(apiKeys.deletedAt)))
        .returning();
      if (!row) throw keyNotFound();
      await deps.keys.invalidate(row.secretHash);
      return presentKey(row);
    },

    /**
     * Deletes a key (soft: `deleted_at` is set so ledger rows keep their key id). The
     * conditional UPDATE makes concurrent deletes safe: exactly one sees the live row.
     */
    async remove(accountId: string, id: string) {
      const [row] = await db
        .update(apiKeys)
        .set({ deletedAt: new Date(deps.now()) })
        .where(and(eq(apiKeys.id, id), eq(apiKeys.accountId, accountId), isNull(apiKeys.deletedAt)))
        .returning({ secretHash: apiKeys.secretHash });
      if (!row) throw keyNotFound();
      await deps.keys.invalidate(row.secretHash);
    },
  };
}

/** The key management service type. */
export type KeysService = ReturnType<typeof createKeysService>;
