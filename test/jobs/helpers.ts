import { expect } from 'bun:test';
import type { TestApp } from '../helpers/app';

const RELAXED_LIMITS = { standard: { videoRetrieve: 100_000, videoQueue: 1000 } };

/** Config of a test app whose job runner polls quickly and whose simulator finishes jobs in `jobMs`. */
export function fastJobsConfig(dataDir: string, jobMs = 300, extra: Record<string, unknown> = {}) {
  return {
    dataDir,
    jobs: { pollIntervalMs: 40, minPollDelayMs: 40, maxPollDelayMs: 200, leaseMs: 2000, ...extra },
    providers: [{ id: 'simulator', kind: 'simulator', options: { jobMs } }],
    // Tests poll retrieve every 50 ms, faster than the Video (retrieve) limit allows; the limit has its own test.
    rateLimits: RELAXED_LIMITS,
  };
}

/** POSTs JSON to a job route and returns the response. */
export const post = (t: TestApp, path: string, json: unknown, key?: string | null) => t.request(path, { method: 'POST', json, key });

/** Polls retrieve until it answers something other than PROCESSING, for at most `waitMs` (a shared machine renders video slowly). */
export async function retrieveUntilDone(
  t: TestApp,
  kind: 'video' | 'audio',
  model: string,
  queueId: string,
  waitMs = 90_000,
): Promise<Response> {
  for (const until = Date.now() + waitMs; Date.now() < until;) {
    const res = await post(t, `/${kind}/retrieve`, { model, queue_id: queueId });
    if (!(res.headers.get('content-type') ?? '').startsWith('application/json')) return res;
    const body = (await res.clone().json()) as { status?: string };
    if (body.status !== 'PROCESSING') return res;
    await Bun.sleep(50);
  }
  throw new Error('the job did not finish');
}

/** The account's USD balance in micro-units, as the meter holds it. */
export async function usdBalance(t: TestApp): Promise<number> {
  const res = await t.request('/billing/balance');
  expect(res.status).toBe(200);
  const body = (await res.json()) as { balances: { usd: number } };
  return Math.round(body.balances.usd * 1_000_000);
}

/** Config of an app whose video and music models go to a media-jobs upstream at `url`. */
export function upstreamJobsConfig(dataDir: string, url: string, jobs: Record<string, unknown> = {}) {
  const route = [{ provider: 'jobs-up', weight: 1 }];
  return {
    dataDir,
    rateLimits: RELAXED_LIMITS,
    jobs: { pollIntervalMs: 30, minPollDelayMs: 30, maxPollDelayMs: 100, leaseMs: 2000, ...jobs },
    providers: [{ id: 'jobs-up', kind: 'media-jobs', baseURL: url, apiKey: 'sk-upstream', timeoutMs: 2000 }],
    models: [
      {
        id: 'fixture-video',
        type: 'video',
        routes: route,
        pricing: { perUnit: '0.10' },
        promptCharacterLimit: 100,
        video: {
          durations: ['5s', '10s'],
          resolutions: ['720p', '1080p'],
          aspectRatios: ['16:9'],
          audio: true,
          inputs: ['image', 'reference_images'],
          pricing: { perSecond: { '720p': '0.10', '1080p': '0.20' }, audioPerSecond: '0.01' },
        },
      },
      {
        id: 'fixture-music',
        type: 'music',
        routes: route,
        pricing: { perUnit: '0.002' },
        music: { defaultSeconds: 30, maxSeconds: 120, format: 'audio/mpeg' },
      },
    ],
  };
}

/** The ledger lines of a request id: kind and signed amount. */
export async function ledgerOf(t: TestApp, requestId: string): Promise<{ kind: string; amount: number }[]> {
  await t.deps.meter.flush();
  const { ledgerAmounts } = await import('../../src/db/schema');
  const { eq } = await import('drizzle-orm');
  const rows = await t.deps.storage.db
    .select({ kind: ledgerAmounts.kind, amount: ledgerAmounts.amountMicros })
    .from(ledgerAmounts)
    .where(eq(ledgerAmounts.requestId, requestId));
  return rows.map((r) => ({ kind: r.kind, amount: Number(r.amount) })).sort((a, b) => a.kind.localeCompare(b.kind));
}
