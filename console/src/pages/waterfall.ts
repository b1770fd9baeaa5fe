import type { RequestDetail, Stages } from './requests-data';

/** A bar of the waterfall: what it is, where it starts and how long it took (ms). */
export interface Span {
  label: string;
  start: number;
  ms: number;
}

/**
 * The waterfall of a request: its stages in pipeline order when the server reports them (auth,
 * admission, plugins, upstream to its first byte, the rest of the stream, settlement), laid end
 * to end; otherwise what every row has: the time to the first byte and the rest, or the total.
 */
export function waterfallOf(r: Pick<RequestDetail, 'latencyMs' | 'ttfbMs'> & { stages?: Stages | null }): Span[] {
  const s: Stages = r.stages ?? {};
  const ttfb = s.upstream_ttfb_ms ?? null;
  const streamed = s.upstream_ms != null && ttfb != null ? Math.max(0, s.upstream_ms - ttfb) : null;
  const parts: [string, number | null | undefined][] = [
    ['auth', s.auth_ms],
    ['admission', s.admission_ms],
    ['plugins', s.plugins_ms],
    ttfb != null ? ['upstream TTFB', ttfb] : ['upstream', s.upstream_ms],
    ['stream', streamed],
    ['settlement', s.settlement_ms],
  ];
  const spans: Span[] = [];
  let at = 0;
  for (const [label, ms] of parts) {
    if (typeof ms !== 'number') continue;
    spans.push({ label, start: at, ms });
    at += ms;
  }
  if (spans.length > 0) return [...spans, { label: 'total', start: 0, ms: r.latencyMs }];
  if (r.ttfbMs !== null)
    return [
      { label: 'to first byte', start: 0, ms: r.ttfbMs },
      { label: 'stream', start: r.ttfbMs, ms: Math.max(0, r.latencyMs - r.ttfbMs) },
      { label: 'total', start: 0, ms: r.latencyMs },
    ];
  return [{ label: 'total', start: 0, ms: r.latencyMs }];
}
