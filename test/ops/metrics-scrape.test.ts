import { afterAll, beforeAll, expect, test } from 'bun:test';
import v8 from 'node:v8';
import { startTestApp, type TestApp } from '../helpers/app';

// A scrape runs on svc's own thread: every request in flight waits for it. In Bun,
// v8.getHeapSpaceStatistics() walks the whole heap (35-55 ms per scrape on a loaded svc),
// so the per-space heap gauges are not exported; the heap totals and process metrics are.
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({});
});
afterAll(() => t.close());

test('GET /metrics never asks for per-space heap statistics, and keeps the heap totals and process metrics', async () => {
  const original = v8.getHeapSpaceStatistics;
  let walks = 0;
  v8.getHeapSpaceStatistics = () => (walks++, original());
  try {
    const res = await t.app.handle(new Request('http://localhost/metrics'));
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(walks).toBe(0);
    expect(text).not.toContain('svc_nodejs_heap_space_size_');
    for (const name of [
      'svc_nodejs_heap_size_total_bytes',
      'svc_nodejs_heap_size_used_bytes',
      'svc_process_cpu_user_seconds_total',
      'svc_process_resident_memory_bytes',
    ])
      expect(text).toMatch(new RegExp(`^${name} \\d`, 'm'));
  } finally {
    v8.getHeapSpaceStatistics = original;
  }
});
