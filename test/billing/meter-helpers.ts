import { and, asc, eq } from 'drizzle-orm';
import { createApp } from '../../src/app';
import { hashSecret, type LimitPeriod } from '../../src/auth/api-keys';
import { bootstrapAdminKey, createAccount } from '../../src/auth/bootstrap';
import { createApiKey } from '../../src/auth/api-keys';
import type { Currency } from '../../src/billing/credit';
import type { ChargeLine, LedgerCharge } from '../../src/billing/ledger-row';
import { createUsageMeter } from '../../src/billing/live-meter';
import { closeDeps, createDeps } from '../../src/boot';
import { parseConfig } from '../../src/config';
import type { Storage } from '../../src/db/database';
import { ledgerLines } from '../../src/db/schema';
import type { AppDeps } from '../../src/deps';
import type { Caller } from '../../src/http/request-context';
import type { KeyValueStore } from '../../src/kv/store';
import { unlimited, type RateLimiter } from '../../src/limits/types';
import type { TestBackend } from '../helpers/backends';
import { fixtureModel, fixtureProvider } from '../chat/helpers';

/** The fixture model: 1 micro-USD per prompt token, 2 per completion token. */
export const MODEL = 'fix';
/** 4 tokens (o200k_base) plus 3 for the message and 3 priming the reply: the chat route estimates exactly 10 prompt tokens, as the fixture reports. */
export const PROMPT = 'one two three four';
/** With max_tokens 5 the reservation is 10 + 5*2 = 20 micro-USD, which is also the actual cost. */
export const COST = 20;

/** One app instance over a storage and KV, with its own meter and the given clock and limiter. */
export interface MeterInstance {
  app: ReturnType<typeof createApp>;
  deps: AppDeps;
  meter: ReturnType<typeof createUsageMeter>;
  /** POST /chat/completions with the fixture model; `key` '' sends no Authorization (wallet callers). */
  chat(key: string, json?: Record<string, unknown>, init?: RequestInit): Promise<Response>;
}

/** Builds an instance whose models route to the fixture upstream at `upstreamUrl`. */
export async function instance(opts: {
  storage: Storage;
  kv: KeyValueStore;
  upstreamUrl: string;
  now?: () => number;
  limits?: RateLimiter;
  billing?: Record<string, unknown>;
  config?: Record<string, unknown>;
}): Promise<MeterInstance> {
  const config = parseConfig({
    logLevel: 'silent',
    providers: [fixtureProvider('up', opts.upstreamUrl)],
    models: [fixtureModel(MODEL, ['up']), fixtureModel('fixdiem', ['up'], { pricing: { input: '1', output: '2', diemPerUsd: '2' } })],
    billing: { flushIntervalMs: 60_000, ...opts.billing },
    // 150 refusals from one account would trip the abuse guard (its own suite tests it).
    abuseGuard: { enabled: false },
    ...opts.config,
  });
  const now = opts.now ?? Date.now;
  const limits = opts.limits ?? unlimited;
  const meter = createUsageMeter({
    db: opts.storage.db,
    kv: opts.kv,
    limits,
    now,
    log: { debug() {}, info() {}, warn() {}, error() {} },
    config,
  });
  const deps = await createDeps(config, { storage: opts.storage, kv: opts.kv, now, limits, meter });
  const app = createApp(deps);
  return {
    app,
    deps,
    meter,
    chat(key, json = {}, init = {}) {
      return app.handle(
        new Request(`http://localhost${config.basePath}/chat/completions`, {
          method: 'POST',
          ...init,
          headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), 'content-type': 'application/json', ...init.headers },
          body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: PROMPT }], max_tokens: 5, ...json }),
        }),
      );
    },
  };
}

/** A fresh storage and KV of `backend` plus the bootstrap data. */
export async function backendPair(backend: TestBackend, now?: () => number) {
  const storage = await backend.storage();
  const kv = await backend.kv({ now });
  await bootstrapAdminKey(storage.db, '100');
  return { storage, kv };
}

/** A fresh backend pair with one instance on it, as most suites need; `close` tears all of it down. */
export async function openMeterSuite(backend: TestBackend, opts: Omit<Parameters<typeof instance>[0], 'storage' | 'kv'>) {
  const { storage, kv } = await backendPair(backend, opts.now);
  const m = await instance({ storage, kv, ...opts });
  return {
    storage,
    kv,
    m,
    async close() {
      await closeInstance(m);
      await kv.close();
      await storage.close();
    },
  };
}

/** A new account without balance and an INFERENCE key on it. */
export async function newAccount(storage: Storage, key: { limitPeriod?: LimitPeriod; usd?: number | null; diem?: number | null } = {}) {
  const accountId = await createAccount(storage.db, {});
  const { secret, row } = await createApiKey(storage.db, {
    accountId,
    type: 'INFERENCE',
    limitPeriod: key.limitPeriod,
    limits: { usd: key.usd ?? null, diem: key.diem ?? null },
  });
  return { accountId, secret, keyId: row.id };
}

/** The caller of a key, for opening tickets directly. */
export async function callerOf(deps: AppDeps, secret: string): Promise<Caller> {
  const apiKey = await deps.keys.lookup(hashSecret(secret));
  if (!apiKey) throw new Error('key not found');
  return { accountId: apiKey.accountId, tier: apiKey.tier, via: 'api_key', apiKey, wallet: null };
}

/** The CHARGE rows of an account. */
export async function charges(storage: Storage, accountId: string, currency: Currency = 'USD') {
  return storage.db
    .select()
    .from(ledgerLines)
    .where(and(eq(ledgerLines.accountId, accountId), eq(ledgerLines.kind, 'CHARGE'), eq(ledgerLines.currency, currency)))
    .orderBy(asc(ledgerLines.createdAt), asc(ledgerLines.id), asc(ledgerLines.line));
}

/** Closes an instance built by `instance` without closing the shared storage and KV. */
export async function closeInstance(i: MeterInstance) {
  await i.meter.close();
  await i.deps.keys.close();
}

export { closeDeps };

/** A settlement as the meter queues it for the ledger: `lines` and their sum, with a chat's usage and the time now unless `over` sets them. */
export function ledgerCharge(accountId: string, requestId: string, lines: ChargeLine[], over: Partial<LedgerCharge> = {}): LedgerCharge {
  return {
    accountId,
    apiKeyId: null,
    requestId,
    currency: 'USD',
    modelId: 'm',
    promptTokens: 10,
    completionTokens: 20,
    executionMs: 30,
    at: Date.now(),
    ...over,
    lines,
    amount: lines.reduce((sum, l) => sum + l.amount, 0),
  };
}
