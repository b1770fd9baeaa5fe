import { describe, expect, test } from 'bun:test';
import { waterfallOf } from '../../console/src/pages/waterfall';

// The Requests page's waterfall: the stage timings when the detail has them, laid end to end
// in pipeline order; what every row has (time to first byte, total) when it has none.
describe('the waterfall of a request', () => {
  test('stages in pipeline order, end to end; the stream is the upstream time past its first byte', () => {
    const spans = waterfallOf({
      latencyMs: 130,
      ttfbMs: 40,
      stages: { auth_ms: 1, admission_ms: 2, plugins_ms: 3, upstream_ttfb_ms: 30, upstream_ms: 120, settlement_ms: 4 },
    });
    expect(spans).toEqual([
      { label: 'auth', start: 0, ms: 1 },
      { label: 'admission', start: 1, ms: 2 },
      { label: 'plugins', start: 3, ms: 3 },
      { label: 'upstream TTFB', start: 6, ms: 30 },
      { label: 'stream', start: 36, ms: 90 },
      { label: 'settlement', start: 126, ms: 4 },
      { label: 'total', start: 0, ms: 130 },
    ]);
  });

  test('missing and null stages are left out; an upstream time without its first byte is one bar', () => {
    const spans = waterfallOf({ latencyMs: 50, ttfbMs: null, stages: { auth_ms: 2, plugins_ms: null, upstream_ms: 40 } });
    expect(spans.map((s) => [s.label, s.start, s.ms])).toEqual([
      ['auth', 0, 2],
      ['upstream', 2, 40],
      ['total', 0, 50],
    ]);
  });

  test('without stages: time to first byte and the rest of a stream, or the total alone', () => {
    expect(waterfallOf({ latencyMs: 200, ttfbMs: 80 }).map((s) => s.label)).toEqual(['to first byte', 'stream', 'total']);
    expect(waterfallOf({ latencyMs: 200, ttfbMs: null, stages: null })).toEqual([{ label: 'total', start: 0, ms: 200 }]);
  });
});
