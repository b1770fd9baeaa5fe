import { expect } from 'bun:test';
import type { TestApp } from '../helpers/app';

/** Config of a test app whose job runner polls quickly and whose simulator finishes jobs in `jobMs`. */
export function fastJobsConfig(dataDir: string, jobMs = 300, extra: Record<string, unknown> = {}) {
  return {
    dataDir,
    jobs: { pollIntervalMs: 40, minPollDelayMs: 40, maxPollDelayMs: 200, leaseMs: 2000, ...extra },
    providers: [{ id: 'simulator', kind: 'simulator', options: { jobMs } }],
  };
}

/** POSTs JSON to a job route and returns the response. */
export const post = (t: TestApp, path: string, json: unknown, key?: string | null) => t.request(path, { method: 'POST', json, key });

/** Polls retrieve until it answers something other than PROCESSING (at most `tries` times). */
export async function retrieveUntilDone(
  t: TestApp,
  kind: 'video' | 'audio',
  model: string,
  queueId: string,
  tries = 200,
): Promise<Response> {
  for (let i = 0; i < tries; i++) {
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
