import { createApiKey } from '../../src/auth/api-keys';
import { createAccount } from '../../src/auth/bootstrap';
import { freeMeter, type UsageMeter } from '../../src/billing/meter';
import type { AppDeps } from '../../src/deps';
import type { Database } from '../../src/db/database';
import { startTestApp, type TestApp, type TestAppOptions } from '../helpers/app';

/**
 * A thin meter that only does what the real meter does with rate limits: `open` admits
 * the request (one request plus prompt estimate + max completion tokens), `settle`
 * corrects the tokens to what was used, `release` gives them all back.
 */
export function limitsMeter(deps: () => AppDeps): UsageMeter {
  return {
    ...freeMeter,
    async open(input) {
      const caller = input.ctx.caller;
      if (!caller || !input.model) throw new Error('meter opened without a caller or a model');
      const admission = await deps().limits.admitModel(
        caller,
        input.model,
        input.estimatedPromptTokens + input.maxCompletionTokens,
        input.ctx.requestId,
      );
      return {
        headers: admission.headers,
        balances: { usd: 0, diem: 0 },
        async settle(usage) {
          await admission.settleTokens(usage.promptTokens + usage.completionTokens);
          return { usdMicros: 0, diemMicros: 0 };
        },
        release: () => admission.settleTokens(0),
      };
    },
  };
}

/** A test app whose meter enforces the rate limits; the abuse guard is off unless config turns it on. */
export async function startLimitsApp(opts: TestAppOptions = {}): Promise<TestApp> {
  let deps: AppDeps | null = null;
  const app = await startTestApp({
    ...opts,
    config: { abuseGuard: { enabled: false }, ...opts.config },
    meter: opts.meter ?? limitsMeter(() => deps as AppDeps),
  });
  deps = app.deps;
  return app;
}

/** A fresh account with an ADMIN and an INFERENCE key, so each test counts from zero. */
export async function newAccount(db: Database, tier: 'standard' | 'partner' = 'standard') {
  const accountId = await createAccount(db, { tier, creditUsd: '10' });
  const admin = await createApiKey(db, { accountId, type: 'ADMIN' });
  const inference = await createApiKey(db, { accountId, type: 'INFERENCE' });
  return { accountId, adminKey: admin.secret, inferenceKey: inference.secret, adminKeyId: admin.row.id };
}

/** A small chat request body for `model`. */
export const chatBody = (model: string, extra: Record<string, unknown> = {}) => ({
  model,
  messages: [{ role: 'user', content: 'Say hi' }],
  max_tokens: 16,
  ...extra,
});

/** Sends one chat completion with `key`. */
export const chat = (t: TestApp, key: string, model: string, extra: Record<string, unknown> = {}) =>
  t.request('/chat/completions', { method: 'POST', key, json: chatBody(model, extra) });

/** The x-ratelimit-* headers of a response. */
export function limitHeaders(res: Response): Record<string, string> {
  const out: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    if (name.startsWith('x-ratelimit-')) out[name] = value;
  });
  return out;
}

/**
 * On the real clock (Redis counts in fixed minutes of wall time), waits out the last
 * `marginMs` of a minute, so a burst under test is not split across two windows.
 */
export async function awayFromMinuteBoundary(fake: boolean, marginMs = 1_000) {
  if (fake) return;
  const left = 60_000 - (Date.now() % 60_000);
  if (left < marginMs) await Bun.sleep(left + 5);
}
