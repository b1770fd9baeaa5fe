import { describe, expect, test } from 'bun:test';
import { quantileMs, snapshotOf, summarize, type Metric } from '../../src/console/live';
import { liveRing } from '../../src/console/live-ring';

/** The registry's JSON as prom-client gives it, for a few requests, upstream calls and errors. */
function metrics(n: { api: number; console: number; fast: number; slow: number; errors: number; streams: number }): Metric[] {
  const route = (r: string, le: string | number, value: number) => ({
    value,
    labels: { method: 'POST', route: r, le },
    metricName: 'svc_http_request_duration_seconds_bucket',
  });
  return [
    {
      name: 'svc_http_requests_total',
      values: [
        { value: n.api - 1, labels: { method: 'POST', route: '/api/v1/chat/completions', status: '200' } },
        { value: 1, labels: { method: 'POST', route: '/api/v1/chat/completions', status: '502' } },
        { value: n.console, labels: { method: 'GET', route: '/console/api/live', status: '200' } },
      ],
    },
    {
      name: 'svc_http_request_duration_seconds',
      values: [
        route('/api/v1/chat/completions', 0.01, n.fast),
        route('/api/v1/chat/completions', 0.1, n.fast + n.slow),
        route('/api/v1/chat/completions', '+Inf', n.fast + n.slow),
        // The console's own polling is left out of the figures.
        route('/console/api/live', 0.01, n.console),
        route('/console/api/live', 0.1, n.console),
        route('/console/api/live', '+Inf', n.console),
      ],
    },
    {
      name: 'svc_upstream_response_seconds',
      values: [
        { value: n.api, labels: { provider: 'up-a', outcome: 'ok', le: 0.1 }, metricName: 'svc_upstream_response_seconds_bucket' },
        { value: n.api, labels: { provider: 'up-a', outcome: 'ok', le: '+Inf' }, metricName: 'svc_upstream_response_seconds_bucket' },
        { value: n.api, labels: { provider: 'up-a', outcome: 'ok' }, metricName: 'svc_upstream_response_seconds_count' },
      ],
    },
    { name: 'svc_upstream_errors_total', values: [{ value: n.errors, labels: { provider: 'up-a', reason: 'timeout' } }] },
    { name: 'svc_open_streams', values: [{ value: n.streams, labels: {} }] },
  ];
}

describe('live figures', () => {
  test('quantiles are interpolated inside the histogram buckets of the interval', () => {
    const before = new Map([
      [0.01, 5],
      [0.1, 5],
      [Infinity, 5],
    ]);
    const after = new Map([
      [0.01, 15],
      [0.1, 25],
      [Infinity, 25],
    ]);
    expect(quantileMs(before, after, 0.5)).toBe(10);
    expect(quantileMs(before, after, 0.99)).toBe(98.2);
    expect(quantileMs(after, after, 0.5)).toBeNull();
    // Past the last finite bound the answer is that bound.
    expect(
      quantileMs(
        new Map(),
        new Map([
          [0.1, 0],
          [Infinity, 4],
        ]),
        0.5,
      ),
    ).toBe(100);
  });

  test('rates over the interval, without the console polling itself; errors by provider and reason', () => {
    const a = snapshotOf(metrics({ api: 10, console: 50, fast: 10, slow: 0, errors: 1, streams: 0 }), 0);
    const b = snapshotOf(metrics({ api: 30, console: 90, fast: 20, slow: 10, errors: 4, streams: 3 }), 10_000);
    const s = summarize(a, b);
    expect(s.requestsPerSecond).toBe(2);
    expect(s.windowSeconds).toBe(10);
    expect(s.openStreams).toBe(3);
    expect(s.p50Ms).toBe(10);
    expect(s.p99Ms).toBe(98.2);
    expect(s.providers).toEqual([
      { id: 'up-a', simulated: false, callsPerSecond: 2, errors: 3, errorsByReason: { timeout: 3 }, p50Ms: 50, p99Ms: 99 },
    ]);
  });
});

describe('the live ring', () => {
  /** A ring over a fake clock and a request counter, sampled every 2 s from 0 to `until` ms. */
  async function ringUntil(until: number, requestsAt: (t: number) => number) {
    const clock = { now: 0 };
    const ring = liveRing(
      async () => {
        const api = 1 + requestsAt(clock.now);
        return metrics({ api, console: 0, fast: api, slow: 0, errors: 0, streams: 0 });
      },
      () => clock.now,
      60_000,
    );
    for (let t = 0; t <= until; t += 2_000) {
      clock.now = t;
      await ring.sample();
    }
    return { ring, clock };
  }

  test('the first reading after a burst covers the last ~10 s, not the time since the start', async () => {
    // 60 s idle, then 20 requests a second for 10 s; a page opens at 71 s and reads once.
    const burst = (t: number) => Math.max(0, Math.min(t, 70_000) - 60_000) / 50;
    const { ring, clock } = await ringUntil(70_000, burst);
    clock.now = 71_000;
    const first = await ring.summary(10_000);
    // From the snapshot of 60 s: 200 requests in 11 s (averaged since the start: 200 in 71 s, 2.8/s).
    expect(first.windowSeconds).toBe(11);
    expect(first.requestsPerSecond).toBe(18.18);
    // The minute window reads the same ring.
    const minute = await ring.summary(60_000);
    expect(minute.windowSeconds).toBe(61);
  });

  test('less than a window after the start, the figures run from the first snapshot', async () => {
    const { ring, clock } = await ringUntil(4_000, (t) => t / 100);
    clock.now = 5_000;
    const s = await ring.summary(10_000);
    expect(s.windowSeconds).toBe(5);
    expect(s.requestsPerSecond).toBe(10);
  });

  test('snapshots older than the longest window are dropped; the simulator is marked', async () => {
    const { ring, clock } = await ringUntil(300_000, (t) => t / 100);
    clock.now = 301_000;
    // Older snapshots are gone: a 5-minute window reads from the oldest kept, ~a minute back.
    const s = await ring.summary(300_000, { simulated: (id) => id === 'up-a' });
    expect(s.windowSeconds).toBe(61);
    expect(s.providers.map((p) => [p.id, p.simulated])).toEqual([['up-a', true]]);
    expect((await ring.summary(10_000)).providers[0]?.simulated).toBe(false);
  });
});

describe('live plugin figures', () => {
  const hook = (plugin: string, name: string, calls: number, fast: number, sum: number): Metric['values'] => [
    { value: calls, labels: { plugin, hook: name }, metricName: 'svc_plugin_duration_seconds_count' },
    { value: sum, labels: { plugin, hook: name }, metricName: 'svc_plugin_duration_seconds_sum' },
    { value: fast, labels: { plugin, hook: name, le: 0.001 }, metricName: 'svc_plugin_duration_seconds_bucket' },
    { value: calls, labels: { plugin, hook: name, le: 0.01 }, metricName: 'svc_plugin_duration_seconds_bucket' },
    { value: calls, labels: { plugin, hook: name, le: '+Inf' }, metricName: 'svc_plugin_duration_seconds_bucket' },
  ];
  const registry = (n: number): Metric[] => [
    {
      name: 'svc_plugin_calls_total',
      values: [
        { value: 10 * n, labels: { plugin: 'p', hook: 'transformRequest' } },
        { value: 10 * n, labels: { plugin: 'p', hook: 'onSettled' } },
      ],
    },
    {
      name: 'svc_plugin_duration_seconds',
      values: [...hook('p', 'transformRequest', 10 * n, 10 * n, 0.005 * n), ...hook('p', 'onSettled', 10 * n, 0, 0.1 * n)],
    },
    { name: 'svc_plugin_refusals_total', values: [{ value: n, labels: { plugin: 'p' } }] },
    { name: 'svc_plugin_errors_total', values: [{ value: 2 * n, labels: { plugin: 'p' } }] },
  ];

  test('calls by hook, refusals, errors, and mean and p95 over every hook of the interval', () => {
    const s = summarize(snapshotOf(registry(1), 0), snapshotOf(registry(3), 10_000));
    // 20 transforms in the first bucket, 20 onSettled in the second: p95 is 90% into the second.
    expect(s.plugins).toEqual([
      {
        name: 'p',
        enabled: true,
        hooks: ['transformRequest', 'onSettled'],
        calls: 40,
        callsByHook: { transformRequest: 20, onSettled: 20 },
        refusals: 2,
        errors: 4,
        meanMs: 5.25,
        p95Ms: 9.1,
      },
    ]);
  });

  test("with the app's list: its plugins in its order, zeros for one without calls", () => {
    const list = [
      { name: 'idle', enabled: false, hooks: [] },
      { name: 'p', enabled: true, hooks: ['transformRequest'] },
    ];
    const s = summarize(snapshotOf(registry(1), 0), snapshotOf(registry(1), 10_000), list);
    expect(s.plugins.map((p) => [p.name, p.calls, p.meanMs, p.p95Ms])).toEqual([
      ['idle', 0, null, null],
      ['p', 0, null, null],
    ]);
  });
});
