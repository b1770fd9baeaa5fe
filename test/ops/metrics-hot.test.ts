import { expect, test } from 'bun:test';
import { Registry } from 'prom-client';
import { HotCounter, HotHistogram } from '../../src/metrics/hot';

test('hot counters and histograms render as Prometheus counters and cumulative histograms', async () => {
  const registry = new Registry();
  const counter = new HotCounter(registry, 't_requests_total', 'requests');
  const histogram = new HotHistogram(registry, 't_seconds', 'latency', [0.1, 1]);
  counter.inc('GET /a', () => ({ route: '/a' }));
  counter.inc('GET /a', () => ({ route: 'never built again' }), 2);
  counter.inc('GET /b', () => ({ route: '/b' }));
  for (const v of [0.05, 0.5, 0.5, 7]) histogram.observe('a', () => ({ route: '/a' }), v);
  const text = await registry.metrics();
  expect(text).toContain('# TYPE t_requests_total counter\nt_requests_total{route="/a"} 3\nt_requests_total{route="/b"} 1');
  expect(text).toContain(
    [
      '# TYPE t_seconds histogram',
      't_seconds_bucket{route="/a",le="0.1"} 1',
      't_seconds_bucket{route="/a",le="1"} 3',
      't_seconds_bucket{route="/a",le="+Inf"} 4',
      't_seconds_sum{route="/a"} 8.05',
      't_seconds_count{route="/a"} 4',
    ].join('\n'),
  );
});
