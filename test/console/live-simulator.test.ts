import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startTestApp, type TestApp } from '../helpers/app';
import { BACKENDS } from '../helpers/backends';

// The built-in simulator makes no HTTP call, so the fetch that times upstream calls never saw
// it: with only the simulator serving, the console's Upstreams table stayed empty.
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ backend: BACKENDS.at(-1) }); // no providers or models: the simulator serves the defaults
}, 30_000);
afterAll(() => t.close());

/** The simulator's call count and its failures as /metrics exports them (the registry is the process's). */
async function simulatorCounts(): Promise<{ calls: number; errors: number }> {
  const text = await (await t.app.handle(new Request('http://localhost/metrics'))).text();
  const value = (re: RegExp) => [...text.matchAll(re)].reduce((n, m) => n + Number(m[1]), 0);
  return {
    calls: value(/^svc_upstream_response_seconds_count\{[^}]*provider="simulator"[^}]*\} (\S+)$/gm),
    errors: value(/^svc_upstream_errors_total\{[^}]*provider="simulator"[^}]*\} (\S+)$/gm),
  };
}

describe('the simulator in the live figures', () => {
  test('each simulated call is timed like an upstream one and listed, marked as the simulator', async () => {
    const before = await simulatorCounts();
    const calls = [
      t.request('/chat/completions', { method: 'POST', json: { model: 'llama-3.3-70b', messages: [{ role: 'user', content: 'Hi' }] } }),
      t.request('/chat/completions', {
        method: 'POST',
        json: { model: 'llama-3.3-70b', stream: true, messages: [{ role: 'user', content: 'Hi' }] },
      }),
      t.request('/embeddings', { method: 'POST', json: { model: 'text-embedding-bge-m3', input: 'hello' } }),
    ];
    for (const res of await Promise.all(calls)) {
      expect(res.status).toBe(200);
      await res.text();
    }
    const after = await simulatorCounts();
    expect(after.calls - before.calls).toBe(3);
    expect(after.errors - before.errors).toBe(0);

    const live = (await (
      await t.app.handle(new Request('http://localhost/console/api/live', { headers: { authorization: `Bearer ${t.adminKey}` } }))
    ).json()) as {
      data: { providers: { id: string; simulated: boolean; callsPerSecond: number; p50Ms: number | null }[] };
    };
    const row = live.data.providers.find((p) => p.id === 'simulator');
    expect(row?.simulated).toBe(true);
    expect(row?.callsPerSecond).toBeGreaterThan(0);
    expect(row?.p50Ms).not.toBeNull();
  });
});
