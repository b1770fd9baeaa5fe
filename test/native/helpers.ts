import OpenAI from 'openai';
import { startTestApp, type TestApp } from '../helpers/app';
import type { TestBackend } from '../helpers/backends';
import { newAccount } from '../limits/helpers';

/** Capabilities of the native-provider test models: everything the adapters translate. */
export const NATIVE_CAPABILITIES = {
  supportsVision: true,
  supportsFunctionCalling: true,
  supportsReasoning: true,
  supportsReasoningEffort: true,
  supportsDisableThinking: true,
  supportsPromptCaching: true,
  supportsResponseSchema: true,
};

/** A text model of tier L routed to `provider`, priced so that cache reads and writes cost apart. */
export const nativeModel = (id: string, provider: string, upstream: string, extra: Record<string, unknown> = {}) => ({
  id,
  type: 'text',
  tier: 'L',
  routes: [{ provider, model: upstream }],
  pricing: { input: '3', output: '30', cacheInput: '0.3', cacheWrite: '3.75' },
  capabilities: NATIVE_CAPABILITIES,
  ...extra,
});

/** A test app over `providers` and `models` (embedded backends unless `backend` says), listening on 127.0.0.1, with an openai SDK client for its admin key. */
export async function startNativeApp(
  config: Record<string, unknown>,
  backend?: TestBackend,
): Promise<{ t: TestApp; client: OpenAI; clientFor(key: string): OpenAI }> {
  const t = await startTestApp({ config, backend });
  t.app.listen({ port: 0, hostname: '127.0.0.1' });
  const clientFor = (apiKey: string) =>
    new OpenAI({
      baseURL: `http://127.0.0.1:${t.app.server?.port}/api/v1`,
      apiKey,
      maxRetries: 0,
      // Uncompressed, so the stream arrives as svc wrote it.
      fetch: (url, init) =>
        fetch(url, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers)), 'accept-encoding': 'identity' } }),
    });
  return { t, client: clientFor(t.adminKey), clientFor };
}

/** A usage line of `/billing/usage`. */
export interface UsageLine {
  sku: string;
  amount: number;
  pricePerUnitUsd: number;
  unit: number;
  inferenceDetails: { requestId: string; promptTokens?: number; completionTokens?: number } | null;
}

/** The usage lines of one request (by its CF-RAY / request id), as `/billing/usage` shows them. */
export async function usageLinesOf(t: TestApp, requestId: string, key = t.adminKey): Promise<UsageLine[]> {
  const body = await (await t.request('/billing/usage?limit=500', { key })).json();
  return (body.data as UsageLine[]).filter((e) => e.inferenceDetails?.requestId === requestId);
}

/** The USD balance of the key's account in micro-USD. */
export async function balanceMicros(t: TestApp, key = t.adminKey): Promise<number> {
  await t.deps.meter.flush();
  const body = await (await t.request('/billing/balance', { key })).json();
  return Math.round(body.balances.usd * 1e6);
}

/** A fresh account (10 USD) with its keys, for limit tests. */
export const freshAccount = (t: TestApp) => newAccount(t.deps.storage.db);
